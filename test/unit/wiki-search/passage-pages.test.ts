import { describe, expect, it } from 'vitest';
import { PassagePages, encodePageStarts } from '../../../src/wiki-search/disk/passage-pages.js';

describe('passage pages', () => {
  it('finds the page of every passage across batches, skipping pages without passages', () => {
    // Page 0: passages 1-3; page 1 has none; page 2: 4; page 3: 5-9 (next batch); page 4: 10.
    const pages = PassagePages.fromBatches([encodePageStarts([0, 2], [1, 4]), encodePageStarts([3, 4], [5, 10])], 10);
    expect(Array.from({ length: 10 }, (_, index) => pages.pageOf(index + 1))).toEqual([0, 0, 0, 2, 3, 3, 3, 3, 3, 4]);
  });

  it('agrees with a linear scan on many pages', () => {
    let seed = 3;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const ordinals: number[] = [];
    const firsts: number[] = [];
    const expected: number[] = [];
    for (let ordinal = 0, next = 1; ordinal < 2_000; ordinal += 1) {
      const passages = Math.floor(random() * 4);
      if (passages === 0) continue;
      ordinals.push(ordinal);
      firsts.push(next);
      for (let passage = 0; passage < passages; passage += 1) expected.push(ordinal);
      next += passages;
    }
    const pages = PassagePages.fromBatches(
      [encodePageStarts(ordinals.slice(0, 700), firsts.slice(0, 700)), encodePageStarts(ordinals.slice(700), firsts.slice(700))],
      expected.length,
    );
    expect(expected.map((_, index) => pages.pageOf(index + 1))).toEqual(expected);
  });

  it('refuses starts that are cut short, out of order, not from passage 1 or past the last passage', () => {
    expect(() => PassagePages.fromBatches([encodePageStarts([0, 1], [1, 3]).subarray(0, 12)], 4)).toThrow(/truncated/);
    expect(() => PassagePages.fromBatches([encodePageStarts([0, 1], [3, 1])], 4)).toThrow(/out of order/);
    expect(() => PassagePages.fromBatches([encodePageStarts([0, 1], [2, 3])], 4)).toThrow(/out of order/);
    expect(() => PassagePages.fromBatches([encodePageStarts([0, 1], [1, 9])], 4)).toThrow(/do not cover/);
    expect(() => PassagePages.fromBatches([], 4)).toThrow(/do not cover/);
  });
});
