/**
 * A short extract of a passage for `search_pages`: the sentence that holds the most distinct query
 * terms (the earliest on ties), followed by the next sentences while they fit, cut at a word boundary.
 * The passage is scanned once with a regular expression of the query's stems as word prefixes rather
 * than by running the analyser over every word (which cost more than the BM25 search itself). A stem
 * that is not a prefix of its word ("citi" for "city") goes unseen; that only makes the choice of
 * sentence slightly worse, never the ranking.
 */
export const DEFAULT_SNIPPET_CHARS = 240;

/** Distinct terms are tracked as bits of one number; more query terms than this are rare and ignored. */
const MAX_TRACKED_TERMS = 30;

function cutAtWord(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const cut = text.slice(0, maxChars - 1);
  const lastSpace = cut.lastIndexOf(' ');
  return `${(lastSpace > maxChars / 2 ? cut.slice(0, lastSpace) : cut).trimEnd()}…`;
}

/** The passage's prose on one line: heading lines dropped, whitespace collapsed. */
function proseOf(passage: string): string {
  if (!passage.includes('\n') && !passage.includes('  ')) return passage.trim();
  const text =
    passage.startsWith('#') || passage.includes('\n#')
      ? passage
          .split('\n')
          .filter((line) => !line.startsWith('#'))
          .join(' ')
      : passage;
  return text.replace(/\s+/g, ' ').trim();
}

const FULL_STOP = 46;
const EXCLAMATION = 33;
const QUESTION = 63;
const SPACE = 32;
const CLOSERS = new Set(['"', "'", ')', ']']);

/**
 * Where sentences start: after ".", "!" or "?" (and an optional closing quote or bracket) and a
 * space. A plain scan, because a regular expression with look-behind cost more than the rest of
 * the snippet. Abbreviations ("U.S. Army") split too early; that only shortens a snippet.
 */
function sentenceStarts(prose: string): number[] {
  const starts = [0];
  for (let index = 0; index < prose.length - 2; index += 1) {
    const code = prose.charCodeAt(index);
    if (code !== FULL_STOP && code !== EXCLAMATION && code !== QUESTION) continue;
    const after = CLOSERS.has(prose[index + 1] ?? '') ? index + 2 : index + 1;
    if (prose.charCodeAt(after) === SPACE && after + 1 < prose.length) starts.push(after + 1);
  }
  return starts;
}

function popCount(bits: number): number {
  let count = 0;
  for (let rest = bits; rest !== 0; rest &= rest - 1) count += 1;
  return count;
}

/** Returns a function that extracts snippets for one query's analysed terms. */
export function snippetMaker(queryTerms: Iterable<string>, maxChars = DEFAULT_SNIPPET_CHARS): (passage: string) => string {
  const stems = [...new Set(queryTerms)].slice(0, MAX_TRACKED_TERMS);
  const bitOf = new Map(stems.map((stem, index) => [stem, 1 << index]));
  // Longest first, so that of two stems starting at one place the longer is the one reported.
  const alternatives = [...stems].sort((left, right) => right.length - left.length).map((stem) => stem.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const pattern = alternatives.length === 0 ? null : new RegExp(`\\b(?:${alternatives.join('|')})`, 'gi');

  return (passage) => {
    const prose = proseOf(passage);
    const starts = sentenceStarts(prose);
    const termsInSentence = new Array<number>(starts.length).fill(0);
    let sentence = 0;
    for (const match of pattern === null ? [] : prose.matchAll(pattern)) {
      while (sentence + 1 < starts.length && (starts[sentence + 1] ?? Infinity) <= match.index) sentence += 1;
      termsInSentence[sentence] = (termsInSentence[sentence] ?? 0) | (bitOf.get(match[0].toLowerCase()) ?? 0);
    }
    let best = 0;
    termsInSentence.forEach((bits, index) => {
      if (popCount(bits) > popCount(termsInSentence[best] ?? 0)) best = index;
    });
    let end = starts[best + 1] ?? prose.length;
    // Extend with following sentences while they fit.
    for (let next = best + 2; next <= starts.length && (starts[next] ?? prose.length) - (starts[best] ?? 0) <= maxChars; next += 1)
      end = starts[next] ?? prose.length;
    return cutAtWord(prose.slice(starts[best] ?? 0, end).trim(), maxChars);
  };
}
