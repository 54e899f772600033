/**
 * Exact BM25 of a passage for a query, the formula and parameters the in-memory engine uses (MiniSearch's, with
 * k1 1.2, b 0.75 and no BM25+ lower bound): idf = ln(1 + (N − df + 0.5) / (df + 0.5)), summed over the query terms
 * the passage holds. The disk index ranks candidates with it, so both backends give one passage the same score.
 */
const K1 = 1.2;
const B = 0.75;

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

/** Score of one passage given as its space-joined terms and BM25 length; 0 when it holds none of the terms. */
export function scorePassageText(termsText: string, length: number, queryTerms: readonly QueryTerm[], statistics: CorpusStatistics): number {
  const frequencies = new Map<string, number>(queryTerms.map((queryTerm) => [queryTerm.term, 0]));
  for (const term of termsText.split(' ')) {
    const count = frequencies.get(term);
    if (count !== undefined) frequencies.set(term, count + 1);
  }
  const lengthNorm = 1 - B + (B * length) / statistics.averageLength;
  let score = 0;
  for (const { term, documentFrequency } of queryTerms) {
    const frequency = frequencies.get(term) ?? 0;
    if (frequency === 0) continue;
    score += inverseDocumentFrequency(statistics, documentFrequency) * ((frequency * (K1 + 1)) / (frequency + K1 * lengthNorm));
  }
  return score;
}
