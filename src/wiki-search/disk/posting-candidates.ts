/**
 * The best passages for a few selective query terms, scored from their postings alone: a term's posting segments
 * (one per build batch, posting-codec.ts) give each passage holding it and the term's frequency there, and the
 * passages' lengths are in memory (passage-lengths.ts), so each posting gets its exact BM25 weight without reading a
 * passage row. The terms' lists are merged in passage order (each is sorted), so a passage's score is complete when
 * the merge passes it and goes straight to a heap of the best (top-scores.ts): no score array over every passage,
 * whose random accesses missed the CPU cache on every posting at a million pages.
 */
import { type CorpusStatistics, type QueryTerm, inverseDocumentFrequency, K1, B } from './bm25-scorer.js';
import type { SqliteDatabase } from './load-better-sqlite3.js';
import { decodePostings, postingCapacity } from './posting-codec.js';
import { TopScores } from './top-scores.js';

/** One term's postings over every batch, in passage order, in reused arrays. */
class TermPostings {
  passages = new Uint32Array(1024);
  frequencies = new Uint32Array(1024);
  count = 0;

  fill(segments: readonly Buffer[]): void {
    const capacity = segments.reduce((total, segment) => total + postingCapacity(segment), 0);
    if (capacity > this.passages.length) {
      const size = Math.max(capacity, this.passages.length * 2);
      this.passages = new Uint32Array(size);
      this.frequencies = new Uint32Array(size);
    }
    this.count = 0;
    for (const segment of segments) {
      this.count += decodePostings(segment, this.passages.subarray(this.count), this.frequencies.subarray(this.count));
    }
  }
}

export class PostingCandidates {
  private readonly segmentsOf;
  private readonly batchStartsJson: string;
  private readonly lists: TermPostings[] = [];

  constructor(
    database: SqliteDatabase,
    private readonly lengths: Uint16Array,
    batchStarts: readonly number[],
    private readonly statistics: CorpusStatistics,
  ) {
    // One seek per build batch (segments are keyed (batch, term), see disk-index-layout.ts), in batch order.
    this.segmentsOf = database
      .prepare('SELECT postings FROM posting_segment WHERE first_number IN (SELECT value FROM json_each(?)) AND term = ? ORDER BY first_number')
      .pluck();
    this.batchStartsJson = JSON.stringify(batchStarts);
  }

  /** Up to `limit` passages with their BM25 over `terms`, best first (ties: the earlier passage first). */
  best(terms: readonly QueryTerm[], limit: number): Map<number, number> {
    const { lengths } = this;
    const termCount = terms.length;
    const weights = new Float64Array(termCount);
    terms.forEach(({ term, documentFrequency }, index) => {
      weights[index] = inverseDocumentFrequency(this.statistics, documentFrequency) * (K1 + 1);
      if (this.lists.length <= index) this.lists.push(new TermPostings());
      (this.lists[index] as TermPostings).fill(this.segmentsOf.all(this.batchStartsJson, term) as Buffer[]);
    });
    const lists = this.lists.slice(0, termCount);
    const heads = new Uint32Array(termCount);
    // BM25's length norm K1 * (1 - B + B * length / average) as base + slope * length.
    const normBase = K1 * (1 - B);
    const normSlope = (K1 * B) / this.statistics.averageLength;
    const top = new TopScores(limit);
    for (;;) {
      let passage = Number.POSITIVE_INFINITY;
      for (let index = 0; index < termCount; index += 1) {
        const list = lists[index] as TermPostings;
        const head = heads[index] as number;
        if (head < list.count && (list.passages[head] as number) < passage) passage = list.passages[head] as number;
      }
      if (passage === Number.POSITIVE_INFINITY) break;
      if (passage >= lengths.length) throw new Error(`a posting names passage ${passage}, past the last one`);
      const norm = normBase + normSlope * (lengths[passage] as number);
      let score = 0;
      for (let index = 0; index < termCount; index += 1) {
        const list = lists[index] as TermPostings;
        const head = heads[index] as number;
        if (head < list.count && list.passages[head] === passage) {
          const frequency = list.frequencies[head] as number;
          score += ((weights[index] as number) * frequency) / (frequency + norm);
          heads[index] = head + 1;
        }
      }
      top.offer(passage, score);
    }
    return new Map(top.sorted());
  }
}
