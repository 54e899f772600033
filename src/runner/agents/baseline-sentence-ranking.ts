/**
 * Ranks the sentences of the sections the baseline read by lexical overlap with the question: idf-weighted
 * shared terms (idf over the sentences read, so words common on the page count little), a smaller credit for
 * terms elsewhere in the same paragraph (questions often paraphrase a whole paragraph), a bonus for question
 * word pairs that appear in order, and a small prior for higher-ranked search results.
 */
import type { QuestionAnalysis } from './baseline-question-analysis.js';
import { splitSentences, type Token, tokenize } from './baseline-text.js';

export interface Passage {
  text: string;
  /** 0 for the top search result. */
  pageRank: number;
}

export interface RankedSentence {
  text: string;
  tokens: Token[];
  score: number;
}

interface SentenceEntry {
  text: string;
  tokens: Token[];
  terms: Set<string>;
  paragraph: number;
  pageRank: number;
}

export const RANKING_WEIGHTS = { paragraphContext: 0.25, orderedPair: 0.5, pageRank: 0.3 };

export function rankSentences(passages: readonly Passage[], analysis: QuestionAnalysis): RankedSentence[] {
  const entries: SentenceEntry[] = [];
  const paragraphTerms: Set<string>[] = [];
  for (const passage of passages) {
    for (const paragraph of splitSentences(passage.text)) {
      const paragraphIndex = paragraphTerms.length;
      const all = new Set<string>();
      for (const text of paragraph) {
        const tokens = tokenize(text);
        const terms = new Set(tokens.flatMap((token) => (token.term === null ? [] : [token.term])));
        for (const term of terms) all.add(term);
        entries.push({ text, tokens, terms, paragraph: paragraphIndex, pageRank: passage.pageRank });
      }
      paragraphTerms.push(all);
    }
  }
  const documentFrequency = new Map<string, number>();
  for (const entry of entries) for (const term of entry.terms) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
  const idf = (term: string) => Math.log((entries.length + 1) / ((documentFrequency.get(term) ?? 0) + 0.5));
  const pairs = analysis.terms.slice(1).map((term, index) => [analysis.terms[index]!, term] as const);

  return entries
    .map((entry) => {
      let score = 0;
      for (const term of analysis.terms) {
        if (entry.terms.has(term)) score += idf(term);
        else if (paragraphTerms[entry.paragraph]!.has(term)) score += RANKING_WEIGHTS.paragraphContext * idf(term);
      }
      const sequence = entry.tokens.flatMap((token) => (token.term === null ? [] : [token.term]));
      for (const [first, second] of pairs) {
        if (sequence.some((term, index) => term === first && sequence[index + 1] === second)) score += RANKING_WEIGHTS.orderedPair * (idf(first) + idf(second)) / 2;
      }
      score -= RANKING_WEIGHTS.pageRank * entry.pageRank;
      return { text: entry.text, tokens: entry.tokens, score };
    })
    .sort((a, b) => b.score - a.score);
}
