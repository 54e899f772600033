/**
 * The best passages for a few selective query terms, scored from their postings alone: a term's posting segments
 * (one per build batch, posting-codec.ts) give each passage holding it, the term's frequency there and the
 * passage's length, so each posting gets its exact BM25 weight without reading a passage row. The terms' lists are
 * merged in passage order (each is sorted), so a passage's score is complete when the merge passes it and goes
 * straight to a heap of the best (top-scores.ts): no array over every passage, whose random accesses missed the CPU
 * cache on every posting at a million pages.
 */
import { type CorpusStatistics, type QueryTerm, inverseDocumentFrequency, K1, B } from './bm25-scorer.js';
import type { SqliteDatabase } from './load-better-sqlite3.js';
import { decodePostings, postingCapacity } from './posting-codec.js';
import { TopScores } from './top-scores.js';

/** One term's postings over every batch, in passage order, in reused arrays. */
class TermPostings {
  passages = new Uint32Array(1024);
  frequencies = new Uint32Array(1024);
  lengths = new Uint32Array(1024);
  count = 0;

  fill(segments: readonly Buffer[]): void {
    const capacity = segments.reduce((total, segment) => total + postingCapacity(segment), 0);
    if (capacity > this.passages.length) {
      const size = Math.max(capacity, this.passages.length * 2);
      this.passages = new Uint32Array(size);
      this.frequencies = new Uint32Array(size);
      this.lengths = new Uint32Array(size);
    }
    this.count = 0;
    for (const segment of segments) {
      const at = this.count;
      this.count += decodePostings(segment, this.passages.subarray(at), this.frequencies.subarray(at), this.lengths.subarray(at));
    }
  }
}

export class PostingCandidates {
  private readonly segmentsOf;
  private readonly batchStartsJson: string;
  private readonly lists: TermPostings[] = [];

  constructor(
    database: SqliteDatabase,
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
    const termCount = terms.length;
    const weights = new Float64Array(termCount);
    terms.forEach(({ term, documentFrequency }, index) => {
      weights[index] = inverseDocumentFrequency(this.statistics, documentFrequency) * (K1 + 1);
      if (this.lists.length <= index) this.lists.push(new TermPostings());
      (this.lists[index] as TermPostings).fill(this.segmentsOf.all(this.batchStartsJson, term) as Buffer[]);
    });
    // Plain local arrays: the loop below runs once per posting, so it reads no object fields.
    const passagesOf = this.lists.slice(0, termCount).map((list) => list.passages.subarray(0, list.count));
    const frequenciesOf = this.lists.slice(0, termCount).map((list) => list.frequencies);
    const lengthsOf = this.lists.slice(0, termCount).map((list) => list.lengths);
    const heads = new Int32Array(termCount);
    // BM25's length norm K1 * (1 - B + B * length / average) as base + slope * length.
    const normBase = K1 * (1 - B);
    const normSlope = (K1 * B) / this.statistics.averageLength;
    const top = new TopScores(limit);
    const scoreOf = (frequency: number, length: number, weight: number) => (weight * frequency) / (frequency + normBase + normSlope * length);
    if (termCount === 1) {
      const passages = passagesOf[0] as Uint32Array;
      const frequencies = frequenciesOf[0] as Uint32Array;
      const lengths = lengthsOf[0] as Uint32Array;
      const weight = weights[0] as number;
      for (let index = 0; index < passages.length; index += 1) {
        top.offer(passages[index] as number, scoreOf(frequencies[index] as number, lengths[index] as number, weight));
      }
      return new Map(top.sorted());
    }
    for (;;) {
      let passage = -1;
      for (let index = 0; index < termCount; index += 1) {
        const passages = passagesOf[index] as Uint32Array;
        const head = heads[index] as number;
        if (head < passages.length && (passage < 0 || (passages[head] as number) < passage)) passage = passages[head] as number;
      }
      if (passage < 0) break;
      let score = 0;
      for (let index = 0; index < termCount; index += 1) {
        const head = heads[index] as number;
        if ((passagesOf[index] as Uint32Array)[head] === passage && head < (passagesOf[index] as Uint32Array).length) {
          score += scoreOf((frequenciesOf[index] as Uint32Array)[head] as number, (lengthsOf[index] as Uint32Array)[head] as number, weights[index] as number);
          heads[index] = head + 1;
        }
      }
      top.offer(passage, score);
    }
    return new Map(top.sorted());
  }
}
