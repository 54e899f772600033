import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type Docker from 'dockerode';
import { CorralError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { OWNER_ID } from '../../core/owner.js';
import { corralVersion } from '../../core/project-root.js';
import { containerName } from '../../sandbox/docker/container-options.js';
import { errorMessage } from '../../sandbox/docker/docker-errors.js';
import { sandboxLabels } from '../../sandbox/docker/docker-labels.js';
import type { TerminalTask } from '../terminal-task.js';
import { collectFromContainer, putDirectory } from './container-archive.js';
import { TESTS_DIRECTORY, type TrialNetworkPolicy, VERIFIER_LOGS_DIRECTORY, verifierContainerOptions } from './trial-container-options.js';
import { COMMITTED_TRIAL_REPOSITORY } from './trial-reaper.js';
import { type VerifierRewards, readVerifierRewards } from './verifier-reward.js';

/** What test.sh may leave in /logs/verifier for the run directory. */
const MAX_VERIFIER_LOG_BYTES = 16 * 1024 * 1024;

export interface VerifierOutcome {
  /** Absent when the verifier gave none (the error says why). */
  rewards?: VerifierRewards;
  error?: CorralError;
  exitCode: number | null;
  timedOut: boolean;
  /** Host folder holding what test.sh left in /logs/verifier (test-stdout.txt, reward files). */
  logDirectory: string;
  durationMs: number;
  /** Part of durationMs spent on docker commit of the agent's final file system. */
  commitMs: number;
  /** Part of durationMs from the verifier container's start to its exit: test.sh itself, plus the container's start. */
  testMs: number;
}

/**
 * The verifier phase, run on the agent container after it was killed (so no agent-phase process exists anywhere):
 * its file system is committed to an image, a fresh container starts from it with empty /tests and /logs/verifier
 * volumes, the task's tests are copied in only now, test.sh runs as [verifier].user with [verifier].env under its
 * timeout, and the reward is read on the host from what the daemon copies out of /logs/verifier.
 */
export async function runVerifierPhase(
  docker: Docker,
  task: TerminalTask,
  agentContainerId: string,
  options: {
    policy: TrialNetworkPolicy;
    timeoutMultiplier: number;
    trialDirectory: string;
    abortSignal?: AbortSignal;
    /** Takes the removal of the verifier container and the committed image, to run it off the critical path. */
    retire: (work: () => Promise<unknown>) => void;
    /** Called once the agent container is committed (it may be removed from then on). */
    onCommitted?: () => void;
    /** Work on the committed image beside the verifier (keeping the final file system); the image goes once it is done. */
    alongside?: (image: string) => Promise<void>;
  },
): Promise<VerifierOutcome> {
  const startedAt = performance.now();
  const logDirectory = join(options.trialDirectory, 'verifier');
  const sandboxId = newId('verify');
  let image: string | undefined;
  let containerId: string | undefined;
  let commitMs = 0;
  let testMs = 0;
  let exitCode: number | null = null;
  let timedOut = false;
  let beside: Promise<void> | undefined;
  try {
    const commitStart = performance.now();
    image = `${COMMITTED_TRIAL_REPOSITORY}:${sandboxId.replace('_', '-')}`;
    await docker.getContainer(agentContainerId).commit({ repo: COMMITTED_TRIAL_REPOSITORY, tag: sandboxId.replace('_', '-'), pause: false });
    commitMs = Math.round(performance.now() - commitStart);
    options.onCommitted?.();
    beside = options.alongside?.(image);
    const timeoutMs = task.verifier.timeoutSec * options.timeoutMultiplier * 1000;
    const expiresAtMs = Date.now() + timeoutMs + 60_000;
    const labels = { ...sandboxLabels({ version: corralVersion(), ownerId: OWNER_ID, sandboxId, expiresAtMs, specHash: image }), 'corral.task': task.name };
    const container = await docker.createContainer(verifierContainerOptions(task, { image, name: containerName(sandboxId), labels, policy: options.policy }));
    containerId = container.id;
    await putTests(docker, container.id, task);
    const testStart = performance.now();
    await container.start();
    ({ exitCode, timedOut } = await waitForExit(container, timeoutMs, options.abortSignal));
    testMs = Math.round(performance.now() - testStart);
    await collectFromContainer(docker, container.id, VERIFIER_LOGS_DIRECTORY, options.trialDirectory, { maxBytes: MAX_VERIFIER_LOG_BYTES });
    const durationMs = Math.round(performance.now() - startedAt);
    if (timedOut) {
      const error = new CorralError(
        'TERMINAL_ERR_VERIFIER_TIMEOUT',
        `${task.name}: test.sh ran past [verifier].timeout_sec ${task.verifier.timeoutSec} x ${options.timeoutMultiplier} and was killed`,
        { details: { timeoutMs } },
      );
      return { error, exitCode, timedOut, logDirectory, durationMs, commitMs, testMs };
    }
    try {
      return { rewards: await readVerifierRewards(logDirectory), exitCode, timedOut, logDirectory, durationMs, commitMs, testMs };
    } catch (error) {
      return { error: error as CorralError, exitCode, timedOut, logDirectory, durationMs, commitMs, testMs };
    }
  } catch (error) {
    if (CorralError.hasCode(error, 'ERR_ABORTED')) throw error;
    const failure = new CorralError('TERMINAL_ERR_TRIAL_FAILED', `${task.name}: the verifier phase failed: ${errorMessage(error)}`, {
      cause: error,
      details: { phase: 'verifier' },
    });
    return { error: failure, exitCode, timedOut, logDirectory, durationMs: Math.round(performance.now() - startedAt), commitMs, testMs };
  } finally {
    await beside?.catch(() => undefined);
    if (containerId)
      await docker
        .getContainer(containerId)
        .remove({ force: true, v: true })
        .catch(() => undefined);
    if (image)
      await docker
        .getImage(image)
        .remove({ force: true })
        .catch(() => undefined);
  }
}

/** tests/ plus the entry script when it lives beside it (TB v1's run-tests.sh), staged so one archive carries both. */
async function putTests(docker: Docker, containerId: string, task: TerminalTask): Promise<void> {
  if (dirname(task.testScript) === task.testsDirectory) return putDirectory(docker, containerId, task.testsDirectory, TESTS_DIRECTORY);
  const stage = await mkdtemp(join(tmpdir(), 'corral-trial-tests-'));
  try {
    await cp(task.testsDirectory, stage, { recursive: true });
    await cp(task.testScript, join(stage, basename(task.testScript)));
    await putDirectory(docker, containerId, stage, TESTS_DIRECTORY);
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
}

async function waitForExit(container: Docker.Container, timeoutMs: number, abortSignal?: AbortSignal): Promise<{ exitCode: number | null; timedOut: boolean }> {
  let timedOut = false;
  const kill = () => container.kill({ signal: 'SIGKILL' }).catch(() => undefined);
  const timer = setTimeout(() => {
    timedOut = true;
    void kill();
  }, timeoutMs);
  abortSignal?.addEventListener('abort', kill, { once: true });
  try {
    const result = (await container.wait()) as { StatusCode?: number };
    if (abortSignal?.aborted) throw new CorralError('ERR_ABORTED', 'trial cancelled during verification');
    return { exitCode: timedOut ? null : (result.StatusCode ?? null), timedOut };
  } finally {
    clearTimeout(timer);
    abortSignal?.removeEventListener('abort', kill);
  }
}
