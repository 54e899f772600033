/**
 * A passage's analysed terms as both indexes count them: the page title's terms repeated `titleWeight` times
 * (BM25F field weighting inside one field, see ../passage-engine.ts), then the passage's own terms, joined by
 * single spaces. Its BM25 length is the number of distinct terms, as MiniSearch counts a field's length, so the
 * disk index scores a passage exactly as the in-memory one does.
 */
export function weightedTermsText(titleTerms: readonly string[], titleWeight: number, textTerms: readonly string[]): string {
  const weighted: string[] = [];
  for (let repeat = 0; repeat < titleWeight; repeat += 1) weighted.push(...titleTerms);
  weighted.push(...textTerms);
  return weighted.join(' ');
}

/** Each term's frequency in the passage as weightedTermsText writes it (title terms counted titleWeight times). */
export function termFrequencies(titleTerms: readonly string[], titleWeight: number, textTerms: readonly string[]): Map<string, number> {
  const frequencies = new Map<string, number>();
  if (titleWeight > 0) for (const term of titleTerms) frequencies.set(term, (frequencies.get(term) ?? 0) + titleWeight);
  for (const term of textTerms) frequencies.set(term, (frequencies.get(term) ?? 0) + 1);
  return frequencies;
}

/** Distinct terms (an empty passage counts 1, its one empty token, as MiniSearch counts it). */
export function bm25Length(frequencies: ReadonlyMap<string, number>): number {
  return Math.max(1, frequencies.size);
}
