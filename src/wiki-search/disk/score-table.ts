/**
 * Scores summed per passage for one query, in an open-addressing hash table of typed arrays sized to the query's
 * postings (twice as many slots, a power of two): small enough to stay in the CPU cache, where an array over every
 * passage in the index is not. Passage numbers start at 1, so 0 marks an empty slot. Reused across queries.
 */
/** Sums of BM25 weights per passage for one query (this table, or dense-scores.ts for small indexes). */
export interface PassageScores {
  /** Empties the sums, with room for `entries` distinct passages. */
  reset(entries: number): this;
  /** Adds `score` (positive) to the passage's sum. */
  add(passage: number, score: number): void;
  /** Visits every passage with a sum once. */
  forEach(visit: (passage: number, score: number) => void): void;
}

export class ScoreTable implements PassageScores {
  private keys = new Uint32Array(1024);
  private values = new Float64Array(1024);
  private mask = 1023;

  /** Empties the table, with room for `entries` distinct passages. */
  reset(entries: number): this {
    let size = 1024;
    while (size < entries * 2) size *= 2;
    if (size > this.keys.length) {
      this.keys = new Uint32Array(size);
      this.values = new Float64Array(size);
    } else {
      this.keys.fill(0, 0, size);
    }
    this.mask = size - 1;
    return this;
  }

  /** Adds `score` to the passage's sum. */
  add(passage: number, score: number): void {
    const { keys, values, mask } = this;
    let slot = Math.imul(passage, 0x9e3779b1) >>> 0;
    for (slot &= mask; ; slot = (slot + 1) & mask) {
      const key = keys[slot] as number;
      if (key === passage) {
        values[slot] = (values[slot] as number) + score;
        return;
      }
      if (key === 0) {
        keys[slot] = passage;
        values[slot] = score;
        return;
      }
    }
  }

  forEach(visit: (passage: number, score: number) => void): void {
    const { keys, values } = this;
    for (let slot = 0; slot <= this.mask; slot += 1) {
      const passage = keys[slot] as number;
      if (passage !== 0) visit(passage, values[slot] as number);
    }
  }
}
