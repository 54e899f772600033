import { describe, expect, it } from 'vitest';
import { DenseScores } from '../../../src/wiki-search/disk/dense-scores.js';
import { ScoreTable } from '../../../src/wiki-search/disk/score-table.js';
import { TermWeightCache, type TermWeights } from '../../../src/wiki-search/disk/term-weight-cache.js';

const list = (size: number): TermWeights => ({ passages: new Uint32Array(size).map((_, index) => index + 1), weights: new Float64Array(size).fill(0.5) });

describe('term weight cache', () => {
  it('keeps lists up to its budget of postings, the least recently used out first', () => {
    const cache = new TermWeightCache(10);
    const [river, otter, lighthouse] = [list(4), list(4), list(4)];
    cache.set('river', river);
    cache.set('otter', otter);
    expect(cache.get('river')).toBe(river); // now the most recently used
    cache.set('lighthouse', lighthouse); // 12 > 10: the oldest, otter, goes
    expect(cache.get('otter')).toBeUndefined();
    expect(cache.get('river')).toBe(river);
    expect(cache.get('lighthouse')).toBe(lighthouse);
    expect(cache.size).toBe(8);
  });

  it('does not keep a list larger than the budget, and a budget of 0 keeps nothing', () => {
    const cache = new TermWeightCache(3);
    cache.set('small', list(2));
    cache.set('huge', list(4));
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.get('small')).toBeDefined();
    const none = new TermWeightCache(0);
    none.set('any', list(1));
    expect(none.get('any')).toBeUndefined();
    expect(none.size).toBe(0);
  });

  it('replacing a term counts its postings once', () => {
    const cache = new TermWeightCache(10);
    cache.set('river', list(6));
    cache.set('river', list(6));
    expect(cache.size).toBe(6);
  });
});

describe('passage score sums', () => {
  it('the dense array and the hash table give the same sums, each passage once, and start empty after reading', () => {
    let seed = 11;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const dense = new DenseScores(5_000);
    const table = new ScoreTable();
    for (let query = 0; query < 3; query += 1) {
      const adds = Array.from({ length: 3_000 }, () => [1 + Math.floor(random() * 5_000), 0.01 + random()] as const);
      dense.reset(adds.length);
      table.reset(adds.length);
      for (const [passage, score] of adds) {
        dense.add(passage, score);
        table.add(passage, score);
      }
      const read = (scores: DenseScores | ScoreTable) => {
        const sums = new Map<number, number>();
        scores.forEach((passage, score) => {
          expect(sums.has(passage)).toBe(false);
          sums.set(passage, score);
        });
        return sums;
      };
      const expected = new Map<number, number>();
      for (const [passage, score] of adds) expected.set(passage, (expected.get(passage) ?? 0) + score);
      expect(read(dense)).toEqual(expected);
      expect(read(table)).toEqual(expected);
    }
  });

  it('a dense sum left by an interrupted read is cleared by the next reset', () => {
    const dense = new DenseScores(10);
    dense.reset(2);
    dense.add(3, 1.5);
    dense.add(4, 2);
    expect(() =>
      dense.forEach(() => {
        throw new Error('interrupted');
      }),
    ).toThrow('interrupted');
    dense.reset(1);
    dense.add(4, 1);
    const sums: [number, number][] = [];
    dense.forEach((passage, score) => sums.push([passage, score]));
    expect(sums).toEqual([[4, 1]]);
  });
});
