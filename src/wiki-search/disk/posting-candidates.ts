/**
 * The best passages for a few selective query terms, scored from their postings alone: a term's posting segments
 * (one per build batch, posting-codec.ts) give each passage holding it and the term's frequency there, and the
 * passages' lengths are in memory (passage-lengths.ts), so each posting gets its exact BM25 weight in a few
 * nanoseconds without reading a passage row. Scores accumulate in one array indexed by passage (8 bytes a passage)
 * and are cleared after use; a heap keeps the best (top-scores.ts).
 */
import { type CorpusStatistics, type QueryTerm, inverseDocumentFrequency, K1, B } from './bm25-scorer.js';
import type { SqliteDatabase } from './load-better-sqlite3.js';
import { decodePostings, postingCapacity } from './posting-codec.js';
import { TopScores } from './top-scores.js';

export class PostingCandidates {
  private readonly segmentsOf;
  private readonly batchStartsJson: string;
  private readonly scores: Float64Array;
  /** Passages given a score by the current query (their first touch), so clearing costs what scoring did. */
  private readonly touched: Uint32Array;
  private passages = new Uint32Array(1024);
  private frequencies = new Uint32Array(1024);

  constructor(
    database: SqliteDatabase,
    private readonly lengths: Uint16Array,
    batchStarts: readonly number[],
    private readonly statistics: CorpusStatistics,
  ) {
    // One seek per build batch: segments are keyed (batch, term), see disk-index-layout.ts.
    this.segmentsOf = database.prepare('SELECT postings FROM posting_segment WHERE first_number IN (SELECT value FROM json_each(?)) AND term = ?').pluck();
    this.batchStartsJson = JSON.stringify(batchStarts);
    this.scores = new Float64Array(lengths.length);
    this.touched = new Uint32Array(lengths.length);
  }

  /** Up to `limit` passages with their BM25 over `terms`, best first (ties: the earlier passage first). */
  best(terms: readonly QueryTerm[], limit: number): Map<number, number> {
    const { scores, lengths, touched } = this;
    // BM25's length norm K1 * (1 - B + B * length / average) as base + slope * length.
    const normBase = K1 * (1 - B);
    const normSlope = (K1 * B) / this.statistics.averageLength;
    let touchedCount = 0;
    try {
      for (const { term, documentFrequency } of terms) {
        const weight = inverseDocumentFrequency(this.statistics, documentFrequency) * (K1 + 1);
        for (const segment of this.segmentsOf.all(this.batchStartsJson, term) as Buffer[]) {
          const count = decodePostings(segment, this.room(postingCapacity(segment)), this.frequencies);
          const { passages, frequencies } = this;
          for (let index = 0; index < count; index += 1) {
            const passage = passages[index] as number;
            if (passage >= scores.length) throw new Error(`a posting names passage ${passage}, past the last one`);
            const frequency = frequencies[index] as number;
            const score = scores[passage] as number;
            if (score === 0) touched[touchedCount++] = passage;
            scores[passage] = score + (weight * frequency) / (frequency + normBase + normSlope * (lengths[passage] as number));
          }
        }
      }
      const top = new TopScores(limit);
      for (let index = 0; index < touchedCount; index += 1) top.offer(touched[index] as number, scores[touched[index] as number] as number);
      return new Map(top.sorted());
    } finally {
      for (let index = 0; index < touchedCount; index += 1) scores[touched[index] as number] = 0;
    }
  }

  /** The passages array, grown to hold `capacity` postings (the frequencies array grows with it). */
  private room(capacity: number): Uint32Array {
    if (capacity > this.passages.length) {
      const size = Math.max(capacity, this.passages.length * 2);
      this.passages = new Uint32Array(size);
      this.frequencies = new Uint32Array(size);
    }
    return this.passages;
  }
}
