/**
 * A short extract of a passage for `search_pages`: the sentence that holds the most distinct query
 * terms (the earliest on ties), followed by the next sentences while they fit, cut at a word boundary.
 * It only runs on the top hits (about ten passages), so it can afford to analyse sentences.
 */
import { termsOf } from './search-terms.js';

export const DEFAULT_SNIPPET_CHARS = 240;

const SENTENCE_END = /(?<=[.!?]["')\]]?)\s+(?=\S)/;

function cutAtWord(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const cut = text.slice(0, maxChars - 1);
  const lastSpace = cut.lastIndexOf(' ');
  return `${(lastSpace > maxChars / 2 ? cut.slice(0, lastSpace) : cut).trimEnd()}…`;
}

/** Sentences of the passage's prose, with heading lines removed and whitespace collapsed. */
function sentencesOf(passage: string): string[] {
  const prose = passage
    .split('\n')
    .filter((line) => !line.startsWith('#'))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  return prose === '' ? [] : prose.split(SENTENCE_END);
}

export function extractSnippet(passage: string, queryTerms: ReadonlySet<string>, maxChars = DEFAULT_SNIPPET_CHARS): string {
  const sentences = sentencesOf(passage);
  let bestIndex = 0;
  let bestCount = -1;
  sentences.forEach((sentence, index) => {
    const count = new Set(termsOf(sentence).filter((term) => queryTerms.has(term))).size;
    if (count > bestCount) {
      bestCount = count;
      bestIndex = index;
    }
  });
  let snippet = sentences[bestIndex] ?? '';
  for (let next = bestIndex + 1; next < sentences.length; next += 1) {
    const candidate = `${snippet} ${sentences[next] ?? ''}`;
    if (candidate.length > maxChars) break;
    snippet = candidate;
  }
  return cutAtWord(snippet, maxChars);
}
