/**
 * Scores summed per passage for one query in an array over every passage in the index, with a list of the passages
 * touched so that reading and clearing them costs the query's own postings. For indexes small enough that the array
 * stays in the CPU cache (DENSE_SCORES_MAX_PASSAGES): no hashing or probing, ~12 ns a posting less than ScoreTable
 * at 100k pages (measured on the bench's 1,000 questions). Above that size every add misses the cache (~100 ns a
 * posting at a million pages), and ScoreTable, sized to the query, is faster. Reused across queries.
 */
import type { PassageScores } from './score-table.js';

/** 512Ki passages: a 4 MiB array, within this machine's 32 MiB L3 beside the rest of a query's data. */
export const DENSE_SCORES_MAX_PASSAGES = 2 ** 19;

export class DenseScores implements PassageScores {
  private readonly sums: Float64Array;
  private touched = new Uint32Array(1024);
  private touchedCount = 0;

  /** Room for passage numbers 1..passageCount. */
  constructor(passageCount: number) {
    this.sums = new Float64Array(passageCount + 1);
  }

  /** Empties the sums, with room for `entries` distinct passages. */
  reset(entries: number): this {
    const { sums, touched } = this;
    // A query that threw midway leaves sums behind: clear them here, not only after forEach.
    for (let index = 0; index < this.touchedCount; index += 1) sums[touched[index] as number] = 0;
    if (entries > touched.length) this.touched = new Uint32Array(Math.max(entries, touched.length * 2));
    this.touchedCount = 0;
    return this;
  }

  /** Adds `score` (positive) to the passage's sum. */
  add(passage: number, score: number): void {
    const sum = this.sums[passage] as number;
    if (sum === 0) this.touched[this.touchedCount++] = passage;
    this.sums[passage] = sum + score;
  }

  /** Visits each touched passage once, in the order first touched, and clears its sum. */
  forEach(visit: (passage: number, score: number) => void): void {
    const { sums, touched } = this;
    for (let index = 0; index < this.touchedCount; index += 1) {
      const passage = touched[index] as number;
      visit(passage, sums[passage] as number);
      sums[passage] = 0;
    }
    this.touchedCount = 0;
  }
}
