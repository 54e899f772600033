// The host-wide file lock (core/file-lock.ts) against holders in other processes, including one in another PID
// namespace, as corral in a container sharing a cache folder would be: bubblewrap gives the holder pid 1 there.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withFileLock } from '../../src/core/file-lock.js';

const HOLDER = resolve(import.meta.dirname, '../fixtures/file-lock/lock-holder.ts');
const STALE_MS = 2000;
const children: ChildProcess[] = [];
const folders: string[] = [];

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function scratch(): string {
  const folder = mkdtempSync(join(tmpdir(), 'corral-file-lock-'));
  folders.push(folder);
  return folder;
}

/** Starts a holder in a fresh PID namespace and resolves once it holds the lock. */
async function startHolderInOwnPidNamespace(holderArguments: string[]): Promise<ChildProcess> {
  const child = spawn(
    'bwrap',
    ['--die-with-parent', '--unshare-pid', '--as-pid-1', '--dev-bind', '/', '/', process.execPath, '--import', 'tsx', HOLDER, ...holderArguments],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  children.push(child);
  await new Promise<void>((resolveHeld, rejectHeld) => {
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('held') && resolveHeld());
    child.once('exit', (code) => rejectHeld(new Error(`the holder exited (${code}) before it held the lock`)));
  });
  return child;
}

describe('withFileLock across processes and PID namespaces', () => {
  it('takes over a lock whose holder was killed in another PID namespace (its pid, 1, is alive on this host)', async () => {
    const lockPath = join(scratch(), 'work.lock');
    const holder = await startHolderInOwnPidNamespace([lockPath, String(STALE_MS)]);
    await new Promise((resolveExit) => {
      holder.once('exit', resolveExit);
      holder.kill('SIGKILL');
    });
    const lines: string[] = [];
    const result = await withFileLock(
      lockPath,
      'test work',
      async () => 'ran after the dead holder',
      (line) => lines.push(line),
      { staleMs: STALE_MS },
    );
    expect(result).toBe('ran after the dead holder');
    expect(lines).toEqual([`waiting for another test work (lock ${lockPath})`]);
  }, 30_000);

  it('waits for a live holder in another PID namespace that holds the lock longer than the stale time', async () => {
    const folder = scratch();
    const lockPath = join(folder, 'work.lock');
    const marker = join(folder, 'holder-finished');
    await startHolderInOwnPidNamespace([lockPath, String(STALE_MS), String(STALE_MS * 3), marker]);
    const seenInside = await withFileLock(
      lockPath,
      'test work',
      async () => readFileSync(marker, 'utf8'),
      () => {},
      { staleMs: STALE_MS },
    );
    expect(seenInside).toBe('done');
  }, 30_000);
});
