/**
 * Which query terms pick the candidate passages. Every posting of a picked term is scored (posting-candidates.ts),
 * so a common term ("year", "city" at a million pages: hundreds of thousands of passages) would make a query cost as
 * much as its postings. The candidates are therefore chosen by the rarest terms only, as many as fit a postings
 * budget (always at least the rarest one), and every candidate is then scored exactly with all query terms
 * (bm25-scorer.ts). Rare terms carry most of BM25's weight (idf), so the exact top 10 is almost always among the
 * rare terms' top candidates; when every term fits the budget (most queries, and every query on a small corpus),
 * the candidates' scores are already exact.
 */
import type { QueryTerm } from './bm25-scorer.js';

/**
 * Postings scored per query. Decoding and scoring a posting costs ~20 ns (see README.md), so 50,000 keeps candidate
 * scoring near 1 ms at any corpus size; a query of common words only scores its rarest term's postings, whatever
 * their number (at most the passage count: a few milliseconds at a million pages).
 */
export const POSTINGS_BUDGET = 50_000;

export interface QueryPlan {
  /** Every query term the index holds, with its document frequency (scored exactly on the candidates). */
  readonly scored: readonly QueryTerm[];
  /** The rarest terms within the postings budget (at least one): their postings pick the candidates. */
  readonly selective: readonly QueryTerm[];
}

export function planQuery(known: readonly QueryTerm[], budget = POSTINGS_BUDGET): QueryPlan {
  const rarestFirst = [...known].sort((left, right) => left.documentFrequency - right.documentFrequency || (left.term < right.term ? -1 : 1));
  const selective: QueryTerm[] = [];
  let postings = 0;
  for (const queryTerm of rarestFirst) {
    if (selective.length > 0 && postings + queryTerm.documentFrequency > budget) break;
    selective.push(queryTerm);
    postings += queryTerm.documentFrequency;
  }
  return { scored: known, selective };
}
