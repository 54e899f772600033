/**
 * Word handling for the baseline agents: tokens with offsets, a light stemmer (so "nations" meets "nation"),
 * stop words, and sentence splitting. Deliberately simple and general: no lists tied to any dataset.
 */

export interface Token {
  text: string;
  start: number;
  end: number;
  /** Stemmed lower-case form; null for stop words and punctuation. */
  term: string | null;
  isWord: boolean;
}

export const STOP_WORDS = new Set(
  (
    'a an the of in on at to for from by with about as into onto over under after before during between through since until upon within without against among ' +
    'and or but nor so yet if than then that this these those there here it its they them their he him his she her we us our you your i me my ' +
    'is are was were be been being am do does did doing done have has had having will would shall should can could may might must ' +
    'what which who whom whose when where why how whatever whichever ' +
    'not no also very just only such same other some any each every all both either neither more most much many few less least own ' +
    'one s t'
  ).split(' '),
);

/** Lower-cases and strips common English suffixes; the same function runs on questions and passages. */
export function stem(word: string): string {
  let w = word.toLowerCase().replace(/['’]s$/, '');
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('s') && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
  else if (w.length > 4 && w.endsWith('ly')) w = w.slice(0, -2);
  return w.replace(/e$/, '');
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
    const lower = word.toLowerCase();
    return { text: word, start: match.index, end: match.index + word.length, term: isWord && !STOP_WORDS.has(lower) ? stem(word) : null, isWord };
  });
}

/** Content terms of a text, each once. */
export function contentTerms(text: string): string[] {
  return [...new Set(tokenize(text).flatMap((token) => (token.term === null ? [] : [token.term])))];
}

const ABBREVIATION = /\b(?:[A-Z]|Mr|Mrs|Ms|Dr|St|Jr|Sr|Prof|Gen|Col|Lt|No|vs|etc|e\.g|i\.e|c|ca|approx|U\.S|U\.K|Inc|Ltd|Co|Corp|Mt|Ft|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.$/;

/** Paragraphs on blank lines, then sentences on . ! ? followed by a capital, digit or quote, skipping abbreviations. */
export function splitSentences(text: string): string[][] {
  return text
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.replace(/^#+\s.*$/gm, '').replace(/\s+/g, ' ').trim())
    .filter((paragraph) => paragraph !== '')
    .map((paragraph) => {
      const sentences: string[] = [];
      let start = 0;
      for (const match of paragraph.matchAll(/[.!?]["')\]]?\s+(?=["'([]?[\p{Lu}\p{N}])/gu)) {
        const end = match.index + match[0].trimEnd().length;
        if (ABBREVIATION.test(paragraph.slice(Math.max(start, end - 8), end).trim().split(' ').at(-1) ?? '')) continue;
        sentences.push(paragraph.slice(start, end).trim());
        start = match.index + match[0].length;
      }
      sentences.push(paragraph.slice(start).trim());
      return sentences.filter((sentence) => sentence !== '');
    });
}
