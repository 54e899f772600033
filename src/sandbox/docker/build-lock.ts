import { open, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sleep } from '../../core/abort.js';
import { isProcessAlive } from '../../core/process-alive.js';

/**
 * A host-wide lock file so two processes (say, two test files starting at once) never debootstrap the same
 * image twice in parallel: the second waits, then finds the hash tag and skips. A lock whose pid is gone is
 * stale and taken over.
 */
export async function withBuildLock<T>(name: string, work: () => Promise<T>, log: (line: string) => void): Promise<T> {
  const lockPath = join(tmpdir(), `corral-image-build-${name}.lock`);
  let announced = false;
  for (;;) {
    try {
      const handle = await open(lockPath, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (!(await lockHolderAlive(lockPath))) {
        await rm(lockPath, { force: true });
        continue;
      }
      if (!announced) log(`waiting for another build of ${name} (lock ${lockPath})`);
      announced = true;
      await sleep(500);
    }
  }
  try {
    return await work();
  } finally {
    await rm(lockPath, { force: true });
  }
}

async function lockHolderAlive(lockPath: string): Promise<boolean> {
  const pid = Number(await readFile(lockPath, 'utf8').catch(() => ''));
  if (!Number.isInteger(pid) || pid <= 0) {
    // An empty file is a lock being written right now, unless it has been empty for a while.
    const modifiedMs = (await stat(lockPath).catch(() => undefined))?.mtimeMs ?? 0;
    return Date.now() - modifiedMs < 5_000;
  }
  return isProcessAlive(pid);
}
