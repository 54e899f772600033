/**
 * The analyser shared by indexing and querying: split into words, lower-case, fold accents, drop stop
 * words, and reduce each word to its Porter stem so "founded" finds "founding". The same function
 * must run on both sides, so it lives here and the index options only name it.
 */
import { stemmer } from 'stemmer';
import { ENGLISH_STOP_WORDS } from './english-stop-words.js';

/** Letters and digits (any script); everything else separates words. */
const WORD = /[\p{L}\p{N}]+/gu;
const COMBINING_MARKS = /[\u0300-\u036f]/g;

export function splitWords(text: string): string[] {
  return text.match(WORD) ?? [];
}

/** Fold case and accents: "Zürich" and "zurich" are one term. */
export function foldWord(word: string): string {
  const lower = word.toLowerCase();
  // Most words are plain ASCII; skipping NFKD for them keeps indexing fast.
  return /^[\x00-\x7f]*$/.test(lower) ? lower : lower.normalize('NFKD').replace(COMBINING_MARKS, '');
}

/** One word to its index term, or null when it carries no meaning for search. */
export function termOf(word: string): string | null {
  const folded = foldWord(word);
  if (ENGLISH_STOP_WORDS.has(folded)) return null;
  return stemmer(folded);
}

/** All index terms of a text, in order, repeats kept. */
export function termsOf(text: string): string[] {
  const terms: string[] = [];
  for (const word of splitWords(text)) {
    const term = termOf(word);
    if (term !== null) terms.push(term);
  }
  return terms;
}
