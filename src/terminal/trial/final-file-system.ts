/**
 * The agent's final file system, kept in the trial folder so the verifier can run again later (`corral rescore` of a
 * terminal run) without the agent. Kept as an archive of what the agent changed relative to the task image, not as
 * the committed image: an archive moves with the run directory to another machine, weighs what the agent wrote
 * (not the image), and goes when the run directory goes, with nothing left in Docker for `corral cleanup` to find.
 * The task image it applies to is rebuilt from the task folder (cached by content). Format and scripts:
 * final-file-system-scripts.ts.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type Docker from 'dockerode';
import { CorralError } from '../../core/errors.js';
import { errorMessage } from '../../sandbox/docker/docker-errors.js';
import type { TerminalTask } from '../terminal-task.js';
import { CAPTURE_SCRIPT } from './final-file-system-scripts.js';
import { runFileSystemHelper } from './file-system-helper.js';

/** The archive's name in the trial folder. */
export const FINAL_FILE_SYSTEM_FILE = 'final-file-system.tar.gz';
/** The most tar (before gzip) a trial keeps; a larger change set is not kept, and its trial cannot be re-verified. */
export const MAX_FINAL_FILE_SYSTEM_BYTES = 256 * 1024 * 1024;
const CAPTURE_TIMEOUT_MS = 600_000;
/** Files Docker itself mounts into a container (`Init: true`'s docker-init, where /sbin is or links to): not the agent's. */
const DOCKER_MOUNT_POINTS = new Set(['/sbin/docker-init', '/usr/sbin/docker-init']);

/** One entry of `docker diff`: Kind 0 changed, 1 added, 2 deleted. */
export interface FileSystemChange {
  Path: string;
  Kind: number;
}

/** What became of a trial's final file system. */
export interface FinalFileSystemOutcome {
  kept: boolean;
  /** Changed, added and deleted paths. */
  changes: number;
  /** The archive's size on disk (0 when not kept). */
  bytes: number;
  /** Why it was not kept. */
  reason?: string;
}

/** The stopped agent container's changes relative to its image (read before the container goes). */
export async function fileSystemChanges(docker: Docker, containerId: string): Promise<FileSystemChange[]> {
  return ((await docker.getContainer(containerId).changes()) as FileSystemChange[] | null) ?? [];
}

/**
 * Writes <trialDirectory>/final-file-system.tar.gz from the image committed for the verifier, in a helper container.
 * Never throws for a file system it cannot keep (the outcome says why; the trial's reward stands); throws
 * ERR_ABORTED when cancelled.
 */
export async function keepFinalFileSystem(
  docker: Docker,
  input: { task: TerminalTask; committedImage: string; changes: readonly FileSystemChange[]; trialDirectory: string; abortSignal?: AbortSignal },
): Promise<FinalFileSystemOutcome> {
  const changes = input.changes.length;
  const destination = join(input.trialDirectory, FINAL_FILE_SYSTEM_FILE);
  const partial = `${destination}.partial`;
  const stage = await mkdtemp(join(tmpdir(), 'corral-final-fs-'));
  let overLimit = false;
  try {
    const list = join(stage, 'changes.json');
    const agentChanges = input.changes.filter((change) => !DOCKER_MOUNT_POINTS.has(change.Path));
    await writeFile(list, JSON.stringify(agentChanges.map((change) => [change.Path, change.Kind])));
    const run = await runFileSystemHelper(docker, {
      task: input.task,
      image: input.committedImage,
      script: CAPTURE_SCRIPT,
      input: list,
      timeoutMs: CAPTURE_TIMEOUT_MS,
      ...(input.abortSignal ? { abortSignal: input.abortSignal } : {}),
      readStdout: (stdout, stop) =>
        writeCapped(stdout, partial, () => {
          overLimit = true;
          stop();
        }),
    });
    if (overLimit) return notKept(changes, `the agent's changes are larger than ${MAX_FINAL_FILE_SYSTEM_BYTES / 1024 / 1024} MiB of tar`);
    if (run.timedOut) return notKept(changes, `archiving the agent's changes took longer than ${CAPTURE_TIMEOUT_MS / 1000} s`);
    if (run.exitCode !== 0) return notKept(changes, `the archiving script exited with status ${run.exitCode}: ${run.stderr || 'no stderr'}`);
    await rename(partial, destination);
    return { kept: true, changes, bytes: (await stat(destination)).size };
  } catch (error) {
    if (CorralError.hasCode(error, 'ERR_ABORTED')) throw error;
    return notKept(changes, `archiving the agent's changes failed: ${errorMessage(error)}`);
  } finally {
    await rm(partial, { force: true });
    await rm(stage, { recursive: true, force: true });
  }
}

const notKept = (changes: number, reason: string): FinalFileSystemOutcome => ({ kept: false, changes, bytes: 0, reason });

/** stdout gzipped into `path`; past the cap nothing more is written and `over` is called once. */
async function writeCapped(stdout: Readable, path: string, over: () => void): Promise<void> {
  let bytes = 0;
  let stopped = false;
  const cap = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      if (stopped) return callback();
      bytes += chunk.length;
      if (bytes <= MAX_FINAL_FILE_SYSTEM_BYTES) return callback(null, chunk);
      stopped = true;
      over();
      callback();
    },
  });
  await pipeline(stdout, cap, createGzip(), createWriteStream(path, { flags: 'w', mode: 0o644 }));
}
