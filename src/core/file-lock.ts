import { rm } from 'node:fs/promises';
import { lock } from 'proper-lockfile';
import { sleep } from './abort.js';

export interface FileLockTiming {
  /** A lock whose holder has not refreshed it for this long is stale and taken over (proper-lockfile's minimum is 2000). */
  staleMs?: number;
}

/** Generous against a busy host: a holder's refresh runs every staleMs / 3, so a late timer does not lose the lock. */
const DEFAULT_STALE_MS = 15_000;
const RETRY_MS = 500;

/**
 * A host-wide lock so two processes never do the same work at once (debootstrap one image, run npm in one prefix):
 * the second waits. proper-lockfile holds it as a directory made with mkdir whose mtime the holder refreshes, so a
 * holder that died is noticed by time, not by its pid: a pid means nothing across PID namespaces (corral in two
 * containers sharing a cache) and may be reused. An exit hook removes the locks a process still holds.
 */
export async function withFileLock<T>(
  lockPath: string,
  what: string,
  work: () => Promise<T>,
  log: (line: string) => void,
  timing: FileLockTiming = {},
): Promise<T> {
  const staleMs = timing.staleMs ?? DEFAULT_STALE_MS;
  let lost: Error | null = null;
  const options = {
    lockfilePath: lockPath,
    realpath: false,
    stale: staleMs,
    update: Math.max(1000, Math.floor(staleMs / 3)),
    // Called from a timer when the lock directory vanished or was taken over while work ran; work cannot be undone.
    onCompromised: (error: Error) => {
      lost = error;
      log(`lost the lock ${lockPath} during the ${what} (${error.message}): another process may be doing it too`);
    },
  };
  let announced = false;
  let release: () => Promise<void>;
  for (;;) {
    try {
      release = await lock(lockPath, options);
      break;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // A plain file here is the pid-file lock older corral versions wrote; proper-lockfile found it stale.
      if (code === 'ENOTDIR') await rm(lockPath, { force: true });
      else if (code !== 'ELOCKED') throw error;
      else {
        if (!announced) log(`waiting for another ${what} (lock ${lockPath})`);
        announced = true;
        await sleep(RETRY_MS);
      }
    }
  }
  try {
    return await work();
  } finally {
    if (lost === null) await release().catch(() => {});
  }
}
