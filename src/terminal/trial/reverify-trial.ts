import { join } from 'node:path';
import type Docker from 'dockerode';
import { CorralError } from '../../core/errors.js';
import { errorMessage } from '../../sandbox/docker/docker-errors.js';
import type { TerminalTask } from '../terminal-task.js';
import { RESTORE_SCRIPT } from './final-file-system-scripts.js';
import { runFileSystemHelper } from './file-system-helper.js';
import type { TrialNetworkPolicy } from './trial-container-options.js';
import { restoreVerifierPaths } from './verifier-paths.js';
import { type VerifierOutcome, runVerifierPhase } from './verifier-phase.js';

const RESTORE_TIMEOUT_MS = 600_000;

export interface ReverifyOutcome extends VerifierOutcome {
  /** ms spent bringing a container from the task image to the agent's final file system. */
  restoreMs: number;
}

/**
 * The verifier again, without the agent: a container from the task image gets the kept changes applied
 * (final-file-system-scripts.ts), /logs and /tests are made plain folders as after an agent phase, and then the
 * verifier phase runs exactly as in a trial (commit, fresh container, the task's tests as they are now). A restore
 * that fails is an errored outcome (TERMINAL_ERR_TRIAL_FAILED, phase restore); throws only ERR_ABORTED.
 */
export async function reverifyTrial(
  docker: Docker,
  options: {
    task: TerminalTask;
    /** The task image the changes apply to. */
    image: string;
    /** The kept final-file-system.tar.gz. */
    archive: string;
    trialDirectory: string;
    policy: TrialNetworkPolicy;
    timeoutMultiplier: number;
    abortSignal: AbortSignal;
    retire: (work: () => Promise<unknown>) => void;
  },
): Promise<ReverifyOutcome> {
  const { task } = options;
  const startedAt = performance.now();
  const failed = (message: string, cause?: unknown): ReverifyOutcome => ({
    error: new CorralError('TERMINAL_ERR_TRIAL_FAILED', `${task.name}: could not restore the kept final file system: ${message}`, {
      ...(cause ? { cause } : {}),
      details: { phase: 'restore' },
    }),
    exitCode: null,
    timedOut: false,
    logDirectory: join(options.trialDirectory, 'verifier'),
    durationMs: Math.round(performance.now() - startedAt),
    commitMs: 0,
    testMs: 0,
    restoreMs: Math.round(performance.now() - startedAt),
  });
  let containerId: string | undefined;
  try {
    const restored = await runFileSystemHelper(docker, {
      task,
      image: options.image,
      script: RESTORE_SCRIPT,
      input: options.archive,
      timeoutMs: RESTORE_TIMEOUT_MS,
      // It is committed for the verifier once restored: its expiry label covers the verifier's run too.
      lifetimeMs: RESTORE_TIMEOUT_MS + task.verifier.timeoutSec * options.timeoutMultiplier * 1000 + 120_000,
      abortSignal: options.abortSignal,
      keep: true,
    });
    containerId = restored.containerId;
    if (restored.timedOut) return failed(`the restore ran past ${RESTORE_TIMEOUT_MS / 1000} s`);
    if (restored.exitCode !== 0) return failed(`the restore script exited with status ${restored.exitCode}: ${restored.stderr || 'no stderr'}`);
    await restoreVerifierPaths(docker, containerId);
    const restoreMs = Math.round(performance.now() - startedAt);
    const stopped = containerId;
    const verifier = await runVerifierPhase(docker, task, stopped, {
      policy: options.policy,
      timeoutMultiplier: options.timeoutMultiplier,
      trialDirectory: options.trialDirectory,
      abortSignal: options.abortSignal,
      retire: options.retire,
      onCommitted: () => {
        containerId = undefined;
        options.retire(() => docker.getContainer(stopped).remove({ force: true, v: true }));
      },
    });
    return { ...verifier, restoreMs };
  } catch (error) {
    if (CorralError.hasCode(error, 'ERR_ABORTED')) throw error;
    return failed(errorMessage(error), error);
  } finally {
    const leftover = containerId;
    if (leftover) options.retire(() => docker.getContainer(leftover).remove({ force: true, v: true }));
  }
}
