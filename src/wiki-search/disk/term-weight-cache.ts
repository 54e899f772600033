/**
 * Each recently queried term's postings, decoded and weighted (passage numbers with the BM25 weight the term gives
 * each one), kept across queries up to a budget of postings, least recently used out first. A weight depends only on
 * the term's document frequency, the posting and the corpus statistics, all fixed for an open index, so a kept list
 * gives the same sums as decoding it again. Why: questions share their common words, and those words hold most of a
 * query's postings (82 % of the bench's postings are in terms another 1,000 questions also used), so a kept list
 * spares the segment reads, the decoding and the division of BM25 for most postings.
 */

/** A term's postings in passage order, with the weight of each. */
export interface TermWeights {
  readonly passages: Uint32Array;
  readonly weights: Float64Array;
}

/** Postings kept: 12 bytes each, so 4 Mi postings hold ~48 MiB. */
export const TERM_WEIGHT_CACHE_POSTINGS = 2 ** 22;

export class TermWeightCache {
  private readonly lists = new Map<string, TermWeights>();
  private postings = 0;

  constructor(private readonly budget = TERM_WEIGHT_CACHE_POSTINGS) {}

  /** The term's kept list, now the most recently used, or undefined. */
  get(term: string): TermWeights | undefined {
    const list = this.lists.get(term);
    if (list !== undefined) {
      // A Map iterates in insertion order: deleting and setting again makes the term the last to be evicted.
      this.lists.delete(term);
      this.lists.set(term, list);
    }
    return list;
  }

  /** Keeps the term's list when it fits the budget, evicting the least recently used lists to make room. */
  set(term: string, list: TermWeights): void {
    const size = list.passages.length;
    if (size > this.budget) return;
    const previous = this.lists.get(term);
    if (previous !== undefined) {
      this.lists.delete(term);
      this.postings -= previous.passages.length;
    }
    for (const [oldest, oldestList] of this.lists) {
      if (this.postings + size <= this.budget) break;
      this.lists.delete(oldest);
      this.postings -= oldestList.passages.length;
    }
    this.lists.set(term, list);
    this.postings += size;
  }

  /** Postings kept now (at most the budget). */
  get size(): number {
    return this.postings;
  }
}
