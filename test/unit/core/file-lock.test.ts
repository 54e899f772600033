import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withFileLock } from '../../../src/core/file-lock.js';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});
function lockPathInScratch(): string {
  const folder = mkdtempSync(join(tmpdir(), 'corral-file-lock-unit-'));
  folders.push(folder);
  return join(folder, 'work.lock');
}

describe('withFileLock in one process', () => {
  it('runs two holders of the same lock one after the other, and the second says it waits', async () => {
    const lockPath = lockPathInScratch();
    const steps: string[] = [];
    const lines: string[] = [];
    const holder = (name: string) =>
      withFileLock(
        lockPath,
        'test work',
        async () => {
          steps.push(`${name} in`);
          await new Promise((resolve) => setTimeout(resolve, 50));
          steps.push(`${name} out`);
        },
        (line) => lines.push(line),
      );
    await Promise.all([holder('first'), holder('second')]);
    expect(steps).toEqual(['first in', 'first out', 'second in', 'second out']);
    expect(lines).toEqual([`waiting for another test work (lock ${lockPath})`]);
  });

  it('releases the lock when the work throws', async () => {
    const lockPath = lockPathInScratch();
    const lines: string[] = [];
    await expect(
      withFileLock(
        lockPath,
        'test work',
        () => Promise.reject(new Error('work failed')),
        (line) => lines.push(line),
      ),
    ).rejects.toThrow('work failed');
    expect(
      await withFileLock(
        lockPath,
        'test work',
        async () => 'again',
        (line) => lines.push(line),
      ),
    ).toBe('again');
    expect(lines).toEqual([]);
  });

  it('takes over a stale pid-file lock an older corral left behind', async () => {
    const lockPath = lockPathInScratch();
    writeFileSync(lockPath, '999999');
    const longAgo = new Date(Date.now() - 60_000);
    utimesSync(lockPath, longAgo, longAgo);
    expect(
      await withFileLock(
        lockPath,
        'test work',
        async () => 'ran',
        () => {},
        { staleMs: 2000 },
      ),
    ).toBe('ran');
  });
});
