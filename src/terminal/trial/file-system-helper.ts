import { basename, dirname } from 'node:path';
import type { Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import type Docker from 'dockerode';
import { CorralError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { OWNER_ID } from '../../core/owner.js';
import { corralVersion } from '../../core/project-root.js';
import { attachContainer } from '../../sandbox/docker/container-attachment.js';
import { containerName } from '../../sandbox/docker/container-options.js';
import { sandboxLabels } from '../../sandbox/docker/docker-labels.js';
import type { TerminalTask } from '../terminal-task.js';
import { putTarArchive } from './container-archive.js';
import { fileSystemHelperOptions } from './trial-container-options.js';

/** How long the output may still arrive after the container exited. */
const OUTPUT_GRACE_MS = 10_000;

export interface FileSystemHelperRun {
  containerId: string;
  exitCode: number | null;
  timedOut: boolean;
  /** The last few KiB of the script's stderr, for error messages. */
  stderr: string;
}

export interface FileSystemHelperOptions {
  task: TerminalTask;
  image: string;
  script: string;
  /** A host file put into the container's root before start, as /.corral-<id>-<its name>; its path there is the script's argv[1]. */
  input: string;
  /** Reads the script's stdout; it ends when the container exits. The default drops it. */
  readStdout?: (stdout: Readable, stop: () => void) => Promise<void>;
  timeoutMs: number;
  /** How long the container may live by its expiry label (default timeoutMs + 60 s); a kept one outlives the script. */
  lifetimeMs?: number;
  abortSignal?: AbortSignal;
  /** Keep the stopped container (the caller commits it, then removes it); otherwise it is removed here. */
  keep?: boolean;
}

/**
 * Runs one of the final file system's Python scripts (final-file-system-scripts.ts) in a labelled helper
 * container, so the reaper and `corral cleanup` remove it if this process dies. Throws ERR_ABORTED when cancelled
 * (after removing the container); a script that fails is a run with its exit code, for the caller to judge.
 */
export async function runFileSystemHelper(docker: Docker, options: FileSystemHelperOptions): Promise<FileSystemHelperRun> {
  const sandboxId = newId('keep');
  const labels = {
    ...sandboxLabels({
      version: corralVersion(),
      ownerId: OWNER_ID,
      sandboxId,
      expiresAtMs: Date.now() + (options.lifetimeMs ?? options.timeoutMs + 60_000),
      specHash: options.image,
    }),
    'corral.task': options.task.name,
  };
  const inputName = `.corral-${sandboxId.replace('_', '-')}-${basename(options.input)}`;
  const container = await docker.createContainer(
    fileSystemHelperOptions(options.task, { image: options.image, name: containerName(sandboxId), labels, script: options.script, args: [`/${inputName}`] }),
  );
  let removeHere = options.keep !== true;
  try {
    await putTarArchive(docker, container.id, [
      '-c',
      '-C',
      dirname(options.input),
      '--owner=0',
      '--group=0',
      `--transform=s|^.*$|${inputName}|`,
      basename(options.input),
    ]);
    const attachment = await attachContainer(container);
    const stop = () => void container.kill({ signal: 'SIGKILL' }).catch(() => undefined);
    const reading = (options.readStdout ?? drain)(attachment.stdout, stop);
    // Awaited after the container exits; a failure before then must not count as unhandled.
    reading.catch(() => undefined);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    options.abortSignal?.addEventListener('abort', stop, { once: true });
    try {
      await container.start();
      const waited = (await container.wait()) as { StatusCode?: number };
      // The attach connection closes once the daemon has sent all output; stdout ends then (or after a grace).
      await Promise.race([attachment.disconnected, delay(OUTPUT_GRACE_MS, undefined, { ref: false })]);
      attachment.endStdout();
      await reading;
      if (options.abortSignal?.aborted) throw new CorralError('ERR_ABORTED', 'cancelled while handling the final file system');
      return {
        containerId: container.id,
        exitCode: timedOut ? null : (waited.StatusCode ?? null),
        timedOut,
        stderr: attachment.stderrLog.text().trim().slice(-2_000),
      };
    } finally {
      clearTimeout(timer);
      options.abortSignal?.removeEventListener('abort', stop);
      attachment.destroy();
    }
  } catch (error) {
    removeHere = true;
    throw error;
  } finally {
    if (removeHere) await container.remove({ force: true, v: true }).catch(() => undefined);
  }
}

async function drain(stdout: Readable): Promise<void> {
  stdout.resume();
  await new Promise<void>((resolve) => stdout.once('end', resolve).once('close', resolve));
}
