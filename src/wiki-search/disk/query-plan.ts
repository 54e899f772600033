/**
 * Which query terms pick the candidate passages. FTS5 ranks every passage that holds any term of its MATCH
 * expression, so a common term ("year", "city" at a million pages: hundreds of thousands of passages) would make a
 * query cost as much as its postings. The candidates are therefore chosen by the rarest terms only, as many as fit a
 * postings budget (always at least the rarest one), and every candidate is then scored exactly with all query terms
 * (bm25-scorer.ts). Rare terms carry most of BM25's weight (idf), so the exact top 10 is almost always among the
 * rare terms' top candidates; on a small corpus every term fits the budget and nothing is left out.
 */
import type { QueryTerm } from './bm25-scorer.js';

/**
 * Postings FTS5 may rank per query. FTS5's bm25() reads each matching passage's size and positions, about 0.25 µs
 * a posting on an idle core, so 5,000 keeps candidate ranking near 1 ms at any corpus size.
 */
export const POSTINGS_BUDGET = 5_000;

export interface QueryPlan {
  /** Every query term the index holds, with its document frequency (scored exactly on the candidates). */
  readonly scored: readonly QueryTerm[];
  /** The rarest terms within the postings budget: the FTS5 MATCH that picks candidates. */
  readonly selective: readonly QueryTerm[];
  /**
   * True when even the rarest term alone exceeds the budget (a query of common words only): candidates are then the
   * passages holding all the query's terms (an intersection, ranked), so the cost stays near the budget.
   */
  readonly overBudget: boolean;
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
  return { scored: known, selective, overBudget: postings > budget };
}

/** FTS5 MATCH text: each term quoted (terms are letters and digits, so quoting needs no escaping), OR'ed or AND'ed. */
export function matchExpression(terms: readonly QueryTerm[], operator: 'OR' | 'AND' = 'OR'): string {
  return terms.map((queryTerm) => `"${queryTerm.term}"`).join(` ${operator} `);
}
