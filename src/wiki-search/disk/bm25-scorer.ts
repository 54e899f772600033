/**
 * Exact BM25 of a passage for a query, the formula and parameters the in-memory engine uses (MiniSearch's, with
 * k1 1.2, b 0.75 and no BM25+ lower bound): idf = ln(1 + (N − df + 0.5) / (df + 0.5)), summed over the query terms
 * the passage holds. The disk index ranks candidates with it, so both backends give one passage the same score.
 */
export const K1 = 1.2;
export const B = 0.75;

export interface CorpusStatistics {
  /** Passages in the index (N). */
  readonly passageCount: number;
  /** Mean BM25 length over all passages. */
  readonly averageLength: number;
}

export interface QueryTerm {
  readonly term: string;
  /** Passages holding the term. */
  readonly documentFrequency: number;
}

export function inverseDocumentFrequency(statistics: CorpusStatistics, documentFrequency: number): number {
  return Math.log(1 + (statistics.passageCount - documentFrequency + 0.5) / (documentFrequency + 0.5));
}

/** A term's BM25 weight in a passage apart from its idf: saturates with the term's frequency, falls with length. */
export function frequencyWeight(frequency: number, length: number, statistics: CorpusStatistics): number {
  return (frequency * (K1 + 1)) / (frequency + K1 * (1 - B + (B * length) / statistics.averageLength));
}

const SPACE = 32;

/** How often `term` occurs as a whole token of the space-joined `termsText` (a scan with indexOf, no split). */
export function occurrences(termsText: string, term: string): number {
  if (term === '') return 0;
  let count = 0;
  for (let at = termsText.indexOf(term); at !== -1; at = termsText.indexOf(term, at + term.length)) {
    const startsToken = at === 0 || termsText.charCodeAt(at - 1) === SPACE;
    const endsToken = at + term.length === termsText.length || termsText.charCodeAt(at + term.length) === SPACE;
    if (startsToken && endsToken) count += 1;
  }
  return count;
}

/** Score of one passage given as its space-joined terms and BM25 length; 0 when it holds none of the terms. */
export function scorePassageText(termsText: string, length: number, queryTerms: readonly QueryTerm[], statistics: CorpusStatistics): number {
  let score = 0;
  for (const { term, documentFrequency } of queryTerms) {
    const frequency = occurrences(termsText, term);
    if (frequency > 0) score += inverseDocumentFrequency(statistics, documentFrequency) * frequencyWeight(frequency, length, statistics);
  }
  return score;
}
