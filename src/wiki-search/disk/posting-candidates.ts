/**
 * The best passages for a few selective query terms, scored from their postings alone: a term's posting segments
 * (one per build batch, posting-codec.ts) give each passage holding it, the term's frequency there and the
 * passage's length, so each posting gets its exact BM25 weight without reading a passage row. Scores add up in a
 * small open-addressing table sized to the query's postings (score-table.ts), then a heap keeps the best
 * (top-scores.ts). Measured alternatives: an array over every passage missed the CPU cache on every posting at a
 * million pages (~100 ns each); merging the terms' sorted lists cost ~85 ns a passage for five terms.
 */
import { type CorpusStatistics, type QueryTerm, inverseDocumentFrequency, K1, B } from './bm25-scorer.js';
import type { SqliteDatabase } from './load-better-sqlite3.js';
import { decodePostings, postingCapacity } from './posting-codec.js';
import { ScoreTable } from './score-table.js';
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
  private readonly table = new ScoreTable();

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
    // BM25's length norm K1 * (1 - B + B * length / average) as base + slope * length.
    const normBase = K1 * (1 - B);
    const normSlope = (K1 * B) / this.statistics.averageLength;
    const table = this.table.reset(this.lists.slice(0, termCount).reduce((total, list) => total + list.count, 0));
    for (let term = 0; term < termCount; term += 1) {
      const { passages, frequencies, lengths, count } = this.lists[term] as TermPostings;
      const weight = weights[term] as number;
      for (let index = 0; index < count; index += 1) {
        const frequency = frequencies[index] as number;
        table.add(passages[index] as number, (weight * frequency) / (frequency + normBase + normSlope * (lengths[index] as number)));
      }
    }
    const top = new TopScores(limit);
    table.forEach((passage, score) => top.offer(passage, score));
    return new Map(top.sorted());
  }
}
