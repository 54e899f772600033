/**
 * Word handling for the baseline agents: tokens with offsets and sentence splitting. What a word means (its
 * stem, or nothing for a stop word) comes from the analyser wiki search uses (src/text/terms.ts), so the
 * agent weighs the same terms the search ranked on. Deliberately general: no lists tied to any dataset.
 */
import { termsOf } from '../../../text/terms.js';

export interface Token {
  text: string;
  start: number;
  end: number;
  /**
   * The analyser's terms of the token, space-joined ("mid-Eocene" -> "mid eocen", "Beyoncé's" -> "beyonc"):
   * null for stop words and punctuation.
   */
  term: string | null;
  isWord: boolean;
}

/**
 * Words keep inner apostrophes, hyphens, dashes and digit separators ("5,500,000", "66–34", "mid-Eocene"); an
 * initial keeps its dot ("Daniel B. Burke", "U.S.").
 */
const TOKEN = /(?:\p{Lu}\.)+(?![\p{L}\p{N}])|[\p{L}\p{N}]+(?:[.,'’\-–][\p{L}\p{N}]+)*|[^\s\p{L}\p{N}]/gu;

export function tokenize(text: string): Token[] {
  return [...text.matchAll(TOKEN)].map((match) => {
    const word = match[0];
    const isWord = /[\p{L}\p{N}]/u.test(word);
    return { text: word, start: match.index, end: match.index + word.length, term: isWord ? termsOf(word).join(' ') || null : null, isWord };
  });
}

/** Content terms of a text, each once. */
export function contentTerms(text: string): string[] {
  return [...new Set(tokenize(text).flatMap((token) => (token.term === null ? [] : [token.term])))];
}

const ABBREVIATION =
  /\b(?:[A-Z]|Mr|Mrs|Ms|Dr|St|Jr|Sr|Prof|Gen|Col|Lt|No|vs|etc|e\.g|i\.e|c|ca|approx|U\.S|U\.K|Inc|Ltd|Co|Corp|Mt|Ft|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.$/;

/** Paragraphs on blank lines, then sentences on . ! ? followed by a capital, digit or quote, skipping abbreviations. */
export function splitSentences(text: string): string[][] {
  return text
    .split(/\n\s*\n/)
    .map((paragraph) =>
      paragraph
        .replace(/^#+\s.*$/gm, '')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter((paragraph) => paragraph !== '')
    .map((paragraph) => {
      const sentences: string[] = [];
      let start = 0;
      for (const match of paragraph.matchAll(/[.!?]["')\]]?\s+(?=["'([]?[\p{Lu}\p{N}])/gu)) {
        const end = match.index + match[0].trimEnd().length;
        if (
          ABBREVIATION.test(
            paragraph
              .slice(Math.max(start, end - 8), end)
              .trim()
              .split(' ')
              .at(-1) ?? '',
          )
        )
          continue;
        sentences.push(paragraph.slice(start, end).trim());
        start = match.index + match[0].length;
      }
      sentences.push(paragraph.slice(start).trim());
      return sentences.filter((sentence) => sentence !== '');
    });
}
