/**
 * The best passages for a few selective query terms, scored from their postings alone: a term's posting segments
 * (one per build batch, posting-codec.ts) give each passage holding it, the term's frequency there and the
 * passage's length, so each posting gets its exact BM25 weight without reading a passage row. Scores add up in a
 * small open-addressing table sized to the query's postings (score-table.ts; in an index of up to half a million
 * passages, an array over all of them: dense-scores.ts), then a heap keeps the best (top-scores.ts). Measured
 * alternatives: an array over every passage missed the CPU cache on every posting at a million pages (~100 ns
 * each); merging the terms' sorted lists cost ~85 ns a passage for five terms.
 */
import { type CorpusStatistics, type QueryTerm, inverseDocumentFrequency, K1, B } from './bm25-scorer.js';
import type { SqliteDatabase } from './load-better-sqlite3.js';
import { decodePostings, postingCapacity } from './posting-codec.js';
import { DENSE_SCORES_MAX_PASSAGES, DenseScores } from './dense-scores.js';
import { type PassageScores, ScoreTable } from './score-table.js';
import { type TermWeights, TermWeightCache } from './term-weight-cache.js';
import { TopScores } from './top-scores.js';

/** Decodes a term's segments (one per batch, in batch order) into one list, weighting each posting by BM25. */
function weighTerm(segments: readonly Buffer[], weight: number, normBase: number, normSlope: number): TermWeights {
  const capacity = segments.reduce((total, segment) => total + postingCapacity(segment), 0);
  const passages = new Uint32Array(capacity);
  const frequencies = new Uint32Array(capacity);
  const lengths = new Uint32Array(capacity);
  let count = 0;
  for (const segment of segments) count += decodePostings(segment, passages.subarray(count), frequencies.subarray(count), lengths.subarray(count));
  const weights = new Float64Array(count);
  for (let index = 0; index < count; index += 1) {
    const frequency = frequencies[index] as number;
    weights[index] = (weight * frequency) / (frequency + normBase + normSlope * (lengths[index] as number));
  }
  return { passages: passages.slice(0, count), weights };
}

export class PostingCandidates {
  private readonly segmentsOf;
  private readonly batchStartsJson: string;
  private readonly table: PassageScores;
  private readonly cache: TermWeightCache;

  constructor(
    database: SqliteDatabase,
    batchStarts: readonly number[],
    private readonly statistics: CorpusStatistics,
    cachePostings?: number,
  ) {
    // Every term's segments in one statement, one seek per build batch and term (segments are keyed (batch, term),
    // see disk-index-layout.ts), in batch order: a statement per term cost ~25 µs more each.
    this.segmentsOf = database.prepare(
      'SELECT term, postings FROM posting_segment WHERE first_number IN (SELECT value FROM json_each(?)) AND term IN (SELECT value FROM json_each(?)) ORDER BY first_number',
    );
    this.batchStartsJson = JSON.stringify(batchStarts);
    this.table = statistics.passageCount <= DENSE_SCORES_MAX_PASSAGES ? new DenseScores(statistics.passageCount) : new ScoreTable();
    this.cache = new TermWeightCache(cachePostings);
  }

  /** Up to `limit` passages with their BM25 over `terms`, best first (ties: the earlier passage first). */
  best(terms: readonly QueryTerm[], limit: number): Map<number, number> {
    const lists = terms.map(({ term }) => this.cache.get(term));
    const missing = terms.filter((_, index) => lists[index] === undefined);
    if (missing.length > 0) {
      const segments = new Map<string, Buffer[]>(missing.map(({ term }) => [term, []]));
      for (const row of this.segmentsOf.all(this.batchStartsJson, JSON.stringify([...segments.keys()])) as { term: string; postings: Buffer }[]) {
        segments.get(row.term)?.push(row.postings);
      }
      // BM25's length norm K1 * (1 - B + B * length / average) as base + slope * length.
      const normBase = K1 * (1 - B);
      const normSlope = (K1 * B) / this.statistics.averageLength;
      terms.forEach(({ term, documentFrequency }, index) => {
        if (lists[index] !== undefined) return;
        const weight = inverseDocumentFrequency(this.statistics, documentFrequency) * (K1 + 1);
        const list = weighTerm(segments.get(term) ?? [], weight, normBase, normSlope);
        lists[index] = list;
        this.cache.set(term, list);
      });
    }
    const table = this.table.reset(lists.reduce((total, list) => total + (list?.passages.length ?? 0), 0));
    // Terms add in query-plan order, as before any list was kept, so a sum rounds the same way every time.
    for (const list of lists) {
      if (list === undefined) continue;
      const { passages, weights } = list;
      for (let index = 0; index < passages.length; index += 1) table.add(passages[index] as number, weights[index] as number);
    }
    const top = new TopScores(limit);
    table.forEach((passage, score) => top.offer(passage, score));
    return new Map(top.sorted());
  }
}
