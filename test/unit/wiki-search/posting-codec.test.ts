import { describe, expect, it } from 'vitest';
import { decodePostings, encodePostings } from '../../../src/wiki-search/disk/posting-codec.js';

function decoded(bytes: Uint8Array): [number, number][] {
  const postings: [number, number][] = [];
  decodePostings(bytes, (passage, frequency) => postings.push([passage, frequency]));
  return postings;
}

describe('posting codec', () => {
  it('gives back every passage and frequency, small and large gaps alike', () => {
    const passages = [1, 2, 130, 16_515, 2_097_282, 4_000_000_000];
    const frequencies = [1, 127, 128, 3, 300, 1];
    const bytes = encodePostings(passages, frequencies);
    expect(decoded(bytes)).toEqual(passages.map((passage, index) => [passage, frequencies[index]]));
    // One byte for a gap or a frequency below 128: the common case costs two bytes a posting.
    expect(encodePostings([5, 6, 7], [1, 1, 1]).byteLength).toBe(6);
    expect(decoded(encodePostings([], []))).toEqual([]);
  });

  it('refuses a list cut inside a number rather than inventing a posting', () => {
    const bytes = encodePostings([1, 300], [1, 200]);
    expect(() => decoded(bytes.subarray(0, bytes.length - 1))).toThrow(/ends inside a number/);
  });
});
