/**
 * The pack's archive buffer (sandbox/file-system-copy/archive-buffer.ts): bytes land in order in one reserved buffer,
 * and a bound above the reservation (or a refused reservation) still takes every byte by growing.
 */
import { describe, expect, it } from 'vitest';
import { ArchiveBuffer } from '../../../../src/sandbox/file-system-copy/archive-buffer.js';

const chunk = (value: number, bytes: number) => Buffer.alloc(bytes, value);

describe('ArchiveBuffer', () => {
  it('keeps appended chunks in order, as one view of exactly their length', () => {
    const archive = new ArchiveBuffer(1024);
    archive.append(chunk(1, 3));
    archive.append(chunk(2, 2));
    expect(archive.length).toBe(5);
    expect([...archive.bytes()]).toEqual([1, 1, 1, 2, 2]);
  });

  it('grows past its reservation without losing bytes', () => {
    const archive = new ArchiveBuffer(4);
    for (let value = 0; value < 10; value++) archive.append(chunk(value, 3));
    expect(archive.length).toBe(30);
    expect([...archive.bytes()]).toEqual(Array.from({ length: 30 }, (_, index) => Math.floor(index / 3)));
  });
});
