import { describe, expect, it } from 'vitest';
import { decodePostings, encodePostings, postingCapacity } from '../../../src/wiki-search/disk/posting-codec.js';
import { TopScores } from '../../../src/wiki-search/disk/top-scores.js';

function decoded(bytes: Uint8Array): [number, number, number][] {
  const passages = new Uint32Array(postingCapacity(bytes));
  const frequencies = new Uint32Array(postingCapacity(bytes));
  const lengths = new Uint32Array(postingCapacity(bytes));
  const count = decodePostings(bytes, passages, frequencies, lengths);
  return Array.from({ length: count }, (_, index) => [passages[index] as number, frequencies[index] as number, lengths[index] as number]);
}

describe('posting codec', () => {
  it('gives back every passage, frequency and length, small and large numbers alike', () => {
    const passages = [1, 2, 130, 16_515, 2_097_282, 4_000_000_000];
    const frequencies = [1, 127, 128, 3, 300, 1];
    const lengths = [1, 40, 128, 65_536, 7, 300];
    const bytes = encodePostings(passages, frequencies, lengths);
    expect(decoded(bytes)).toEqual(passages.map((passage, index) => [passage, frequencies[index], lengths[index]]));
    // One byte for each number below 128: the common case costs three bytes a posting.
    expect(encodePostings([5, 6, 7], [1, 1, 1], [9, 9, 9]).byteLength).toBe(9);
    expect(decoded(encodePostings([], [], []))).toEqual([]);
  });

  it('refuses a list cut inside a number rather than inventing a posting', () => {
    const bytes = encodePostings([1, 300], [1, 200], [5, 200]);
    expect(() => decoded(bytes.subarray(0, bytes.length - 1))).toThrow(/ends inside a number/);
  });
});

describe('top scores', () => {
  it('keeps the k best as a full sort by score (descending) then id (ascending) would', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const items = Array.from({ length: 2_000 }, (_, id) => [id, Math.floor(random() * 50) / 10] as [number, number]);
    for (const k of [0, 1, 10, 100, 5_000]) {
      const top = new TopScores(k);
      for (const [id, score] of items) top.offer(id, score);
      const expected = [...items].sort(([leftId, left], [rightId, right]) => right - left || leftId - rightId).slice(0, k);
      expect(top.sorted()).toEqual(expected);
    }
  });
});
