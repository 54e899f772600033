/**
 * The one text analyser: split into words, fold case and accents, drop stop words, and reduce each word
 * to its Porter stem so "founded" finds "founding". Wiki search runs it when indexing and querying (the
 * index stores analysed text), and the baseline agents run it on questions and passages, so the two
 * never disagree about what a word is. Changing anything here changes every index: bump
 * ANALYSER_VERSION so saved index files are rebuilt.
 */
import { stemmer } from 'stemmer';
import { ENGLISH_STOP_WORDS } from './english-stop-words.js';

export const ANALYSER_VERSION = 1;

/** Letters and digits (any script); everything else separates words. */
const WORD = /[\p{L}\p{N}]+/gu;
const COMBINING_MARKS = /[\u0300-\u036f]/g;
/** Words are letters and digits only, so plain ASCII ones need no accent folding. */
const PLAIN_ASCII_WORD = /^[a-z0-9]*$/;

/**
 * Word → term memo. A corpus has far fewer distinct words than word occurrences, and stemming is
 * the most expensive step of indexing; the cap keeps odd query streams from growing it forever.
 */
const termCache = new Map<string, string | null>();
const TERM_CACHE_LIMIT = 500_000;

/** Forget memoised terms, so a benchmark can time a build as a fresh process would run it. */
export function clearTermCache(): void {
  termCache.clear();
}

export function splitWords(text: string): string[] {
  return text.match(WORD) ?? [];
}

/** Fold case and accents: "Zürich" and "zurich" are one term. */
export function foldWord(word: string): string {
  const lower = word.toLowerCase();
  return PLAIN_ASCII_WORD.test(lower) ? lower : lower.normalize('NFKD').replace(COMBINING_MARKS, '');
}

/** A word's stem, stop word or not (for words picked by position, such as the noun after "what"). */
export function stemOf(word: string): string {
  return stemmer(foldWord(word));
}

/** One word to its index term, or null when it carries no meaning for search. */
export function termOf(word: string): string | null {
  const cached = termCache.get(word);
  if (cached !== undefined) return cached;
  const folded = foldWord(word);
  const term = ENGLISH_STOP_WORDS.has(folded) || folded === '' ? null : stemmer(folded);
  if (termCache.size >= TERM_CACHE_LIMIT) termCache.clear();
  termCache.set(word, term);
  return term;
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
