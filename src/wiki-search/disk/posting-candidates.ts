/**
 * The best passages for a few selective query terms, scored from their postings alone: a term's posting segments
 * (one per build batch, posting-codec.ts) give each passage holding it and the term's frequency there, and the
 * passages' lengths are in memory (passage-lengths.ts), so each posting gets its exact BM25 weight in ~20 ns without
 * reading a passage row. Scores accumulate in one array indexed by passage (8 bytes a passage), cleared after use.
 */
import { type CorpusStatistics, type QueryTerm, frequencyWeight, inverseDocumentFrequency } from './bm25-scorer.js';
import type { SqliteDatabase } from './load-better-sqlite3.js';
import { decodePostings } from './posting-codec.js';

export class PostingCandidates {
  private readonly segmentsOf;
  private readonly scores: Float64Array;
  private touched: number[] = [];

  constructor(
    database: SqliteDatabase,
    private readonly lengths: Uint16Array,
    private readonly statistics: CorpusStatistics,
  ) {
    this.segmentsOf = database.prepare('SELECT postings FROM posting_segment WHERE term = ? ORDER BY first_number').pluck();
    this.scores = new Float64Array(lengths.length);
  }

  /** Up to `limit` passages with their BM25 over `terms`, best first (ties: the earlier passage first). */
  best(terms: readonly QueryTerm[], limit: number): Map<number, number> {
    const { scores, lengths, statistics } = this;
    const touched = this.touched;
    try {
      for (const { term, documentFrequency } of terms) {
        const idf = inverseDocumentFrequency(statistics, documentFrequency);
        for (const segment of this.segmentsOf.all(term) as Buffer[]) {
          decodePostings(segment, (passage, frequency) => {
            if (passage >= scores.length) throw new Error(`a posting names passage ${passage}, past the last one`);
            if (scores[passage] === 0) touched.push(passage);
            scores[passage] = (scores[passage] as number) + idf * frequencyWeight(frequency, lengths[passage] as number, statistics);
          });
        }
      }
      return bestByScore(scores, touched, limit);
    } finally {
      for (const passage of touched) scores[passage] = 0;
      this.touched = [];
    }
  }
}

/** The `limit` best of the touched passages, in order: a numeric sort of their scores finds the cut. */
function bestByScore(scores: Float64Array, touched: readonly number[], limit: number): Map<number, number> {
  if (limit <= 0 || touched.length === 0) return new Map();
  let cut = -Infinity;
  if (touched.length > limit) {
    const sorted = Float64Array.from(touched, (passage) => scores[passage] as number).sort();
    cut = sorted[sorted.length - limit] as number;
  }
  const kept: [number, number][] = [];
  for (const passage of touched) {
    const score = scores[passage] as number;
    if (score >= cut) kept.push([passage, score]);
  }
  kept.sort(([leftPassage, left], [rightPassage, right]) => right - left || leftPassage - rightPassage);
  return new Map(kept.slice(0, limit));
}
