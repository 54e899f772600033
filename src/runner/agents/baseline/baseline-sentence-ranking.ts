/**
 * Ranks the sentences of the sections the baseline read by lexical overlap with the question: idf-weighted
 * shared terms (idf over the sentences read, so words common on the page count little), a smaller credit for
 * terms elsewhere in the same paragraph (questions often paraphrase a whole paragraph), a bonus for question
 * word pairs that appear in order, and a small prior for higher-ranked search results. Words of the page's
 * title count less: the whole page is about its title, and most of its sentences refer to it by pronoun, so
 * a sentence that names the topic is no more likely to hold the answer than one that says "it".
 */
import type { QuestionAnalysis } from './baseline-question-analysis.js';
import { contentTerms, splitSentences, type Token, tokenize } from './baseline-text.js';

export interface Passage {
  text: string;
  /** 0 for the top search result. */
  pageRank: number;
  /** Title of the page the passage is from. */
  title?: string;
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
  topic: Set<string>;
}

/** Picked on the dev split only (qa/squad-v1.1-dev/dev.jsonl); multiples of a shared term's idf. */
export const RANKING_WEIGHTS = { paragraphContext: 0.25, orderedPair: 0.5, pageRank: 0.3, topicTerm: 0.3 };

export function rankSentences(passages: readonly Passage[], analysis: QuestionAnalysis): RankedSentence[] {
  const entries: SentenceEntry[] = [];
  const paragraphTerms: Set<string>[] = [];
  for (const passage of passages) {
    const topic = new Set(contentTerms(passage.title ?? ''));
    for (const paragraph of splitSentences(passage.text)) {
      const paragraphIndex = paragraphTerms.length;
      const all = new Set<string>();
      for (const text of paragraph) {
        const tokens = tokenize(text);
        const terms = new Set(tokens.flatMap((token) => (token.term === null ? [] : [token.term])));
        for (const term of terms) all.add(term);
        entries.push({ text, tokens, terms, paragraph: paragraphIndex, pageRank: passage.pageRank, topic });
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
        const weight = (entry.topic.has(term) ? RANKING_WEIGHTS.topicTerm : 1) * idf(term);
        if (entry.terms.has(term)) score += weight;
        else if (paragraphTerms[entry.paragraph]!.has(term)) score += RANKING_WEIGHTS.paragraphContext * weight;
      }
      const sequence = entry.tokens.flatMap((token) => (token.term === null ? [] : [token.term]));
      for (const [first, second] of pairs) {
        if (entry.topic.has(first) && entry.topic.has(second)) continue;
        if (sequence.some((term, index) => term === first && sequence[index + 1] === second))
          score += (RANKING_WEIGHTS.orderedPair * (idf(first) + idf(second))) / 2;
      }
      score -= RANKING_WEIGHTS.pageRank * entry.pageRank;
      return { text: entry.text, tokens: entry.tokens, score };
    })
    .sort((a, b) => b.score - a.score);
}
