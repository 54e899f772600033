import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { CorralError } from '../../core/errors.js';
import { errorMessage } from '../../sandbox/docker/docker-errors.js';
import { ensureHostFolder } from '../host-folder.js';
import type { TerminalTask } from '../terminal-task.js';
import { collectFromContainer, putDirectory } from './container-archive.js';
import type { TrialAgent, TrialAgentContext, TrialAgentOutcome } from './trial-agent.js';
import { AGENT_LOGS_DIRECTORY, type TrialNetworkPolicy } from './trial-container-options.js';
import type { TrialContainerPool } from './trial-container-pool.js';
import type { TrialContainer } from './trial-container.js';
import type { PhaseWindow, TrialFailure, TrialResult } from './trial-result.js';
import { storageExcess } from './storage-limit.js';
import { restoreVerifierPaths } from './verifier-paths.js';
import { runVerifierPhase } from './verifier-phase.js';

/** What /logs/agent and the artifacts may weigh in the run directory, each. */
const MAX_COLLECTED_BYTES = 64 * 1024 * 1024;

export interface TrialOptions {
  docker: Docker;
  pool: TrialContainerPool;
  task: TerminalTask;
  /** The task's built image; absent when its build failed (imageError says why). */
  image: string | undefined;
  imageError?: { code: string; message: string; logPath?: string };
  /** ms the image phase took (build or cache check), shared by the task's trials. */
  imageMs: number;
  agent: TrialAgent;
  /** Where this trial's agent/, verifier/ and artifacts/ go. */
  trialDirectory: string;
  timeoutMultiplier: number;
  policy: TrialNetworkPolicy;
  rolloutIndex: number;
  abortSignal: AbortSignal;
}

/**
 * One trial: a fresh container, the agent phase under its deadline, then the verifier in a fresh container from
 * the agent's final file system. Never throws for a trial's own failure (that is data on the result); throws
 * ERR_ABORTED when cancelled, after removing what it created.
 */
export async function runTrial(options: TrialOptions): Promise<TrialResult> {
  const { task, agent } = options;
  const started = new Date();
  const clock = performance.now();
  const elapsed = (from: number) => Math.round(performance.now() - from);
  const result: TrialResult = {
    task: task.name,
    agent: agent.name,
    reward: null,
    rewards: null,
    rewardSource: null,
    error: null,
    agentPhase: { exitCode: null, timedOut: false, error: null, summary: null, details: {} },
    verifierPhase: null,
    timings: { image_ms: options.imageMs, container_start_ms: 0, container_wait_ms: 0, agent_ms: 0, verifier_ms: 0, commit_ms: 0, test_ms: 0, total_ms: 0 },
    windows: { trial: { startedAt: started.toISOString(), finishedAt: '' } },
    directories: { trial: options.trialDirectory, agent: null, verifier: null, artifacts: null },
  };
  const finish = (error?: TrialFailure) => {
    if (error) result.error = error;
    result.timings.total_ms = elapsed(clock);
    result.windows.trial.finishedAt = new Date().toISOString();
    return result;
  };
  if (!options.image) {
    const failure = options.imageError ?? { code: 'TASK_ERR_IMAGE_BUILD_FAILED', message: `${task.name}: no image` };
    return finish({ code: failure.code, message: failure.message, phase: 'image', ...(failure.logPath ? { details: { logPath: failure.logPath } } : {}) });
  }
  await ensureHostFolder(options.trialDirectory);
  let container: TrialContainer | undefined;
  try {
    const containerWindow = windowStart();
    const waitStart = performance.now();
    try {
      container = await options.pool.acquire(task, options.image, options.abortSignal);
    } catch (error) {
      if (CorralError.hasCode(error, 'ERR_ABORTED')) throw error;
      return finish(failureOf(error, 'container'));
    }
    result.timings.container_wait_ms = elapsed(waitStart);
    result.timings.container_start_ms = container.startMs;
    result.windows.container = windowEnd(containerWindow);

    const agentWindow = windowStart();
    const agentStart = performance.now();
    const agentPhase = await runAgentPhase(container, options, result);
    result.timings.agent_ms = elapsed(agentStart);
    result.windows.agent = windowEnd(agentWindow);
    throwIfCancelled(options.abortSignal);

    // Every agent-phase process dies with the container's PID namespace before anything is verified.
    await container.kill();
    const stopped = container;
    const overStorage = await storageExcess(options.docker, stopped.containerId, task);
    if (overStorage) {
      // The task's disk was full: a 0 without verifying (a real disk of that size would have stopped the agent).
      result.agentPhase.error = overStorage;
      await collectAgentFiles(options.docker, stopped.containerId, task, options.trialDirectory, result);
      await writeAgentFiles(options.trialDirectory, agentPhase.files, result);
      result.reward = 0;
      result.rewards = { reward: 0 };
      return finish();
    }
    if (agentPhase.failure) {
      // The agent could not work (its model failed): nothing to verify; its logs are still kept.
      await collectAgentFiles(options.docker, stopped.containerId, task, options.trialDirectory, result);
      await writeAgentFiles(options.trialDirectory, agentPhase.files, result);
      return finish(agentPhase.failure);
    }
    try {
      await restoreVerifierPaths(options.docker, stopped.containerId);
    } catch (error) {
      return finish(
        failureOf(
          new CorralError('TERMINAL_ERR_TRIAL_FAILED', `${task.name}: could not restore /logs and /tests for the verifier: ${errorMessage(error)}`, {
            cause: error,
            details: { phase: 'verifier' },
          }),
          'verifier',
        ),
      );
    }
    // Collection and the commit both read the stopped container; the container goes once both are done.
    const collected = collectAgentFiles(options.docker, stopped.containerId, task, options.trialDirectory, result);
    const verifierWindow = windowStart();
    let committed = false;
    const verifier = await runVerifierPhase(options.docker, task, stopped.containerId, {
      policy: options.policy,
      timeoutMultiplier: options.timeoutMultiplier,
      trialDirectory: options.trialDirectory,
      abortSignal: options.abortSignal,
      retire: (work) => options.pool.retire(work),
      onCommitted: () => {
        committed = true;
        options.pool.retire(async () => {
          await collected;
          await stopped.remove();
        });
      },
    });
    await collected;
    await writeAgentFiles(options.trialDirectory, agentPhase.files, result);
    if (committed) container = undefined;
    result.windows.verifier = windowEnd(verifierWindow);
    result.timings.verifier_ms = verifier.durationMs;
    result.timings.commit_ms = verifier.commitMs;
    result.timings.test_ms = verifier.testMs;
    result.verifierPhase = { exitCode: verifier.exitCode, timedOut: verifier.timedOut };
    result.directories.verifier = verifier.logDirectory;
    if (verifier.rewards) {
      result.reward = verifier.rewards.reward;
      result.rewards = verifier.rewards.rewards;
      result.rewardSource = verifier.rewards.source;
      return finish();
    }
    return finish(failureOf(verifier.error, 'verifier'));
  } finally {
    const leftover = container;
    if (leftover) options.pool.retire(() => leftover.remove());
  }
}

/**
 * Runs the agent under its deadline; returns the files its host side wants in <trial>/agent/ and, when the agent
 * could not work for a reason outside the task, the failure that errors the trial (see agentPhaseFailure).
 */
async function runAgentPhase(
  container: TrialContainer,
  options: TrialOptions,
  result: TrialResult,
): Promise<{ files: TrialAgentOutcome['agentFiles']; failure?: TrialFailure }> {
  const { task } = options;
  const timeoutMs = task.agent.timeoutSec * options.timeoutMultiplier * 1000;
  const deadlineMs = Date.now() + timeoutMs;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new CorralError('SBX_ERR_TIMEOUT', `the agent phase passed its ${timeoutMs / 1000} s`)), timeoutMs);
  const abortSignal = AbortSignal.any([options.abortSignal, deadline.signal]);
  const remainingMs = () => Math.max(1, deadlineMs - Date.now());
  const context: TrialAgentContext = {
    task,
    instruction: task.instruction,
    session: container.session,
    deadlineMs,
    abortSignal,
    rolloutIndex: options.rolloutIndex,
    socketsDirectory: container.socketsDirectory,
    exec: (command, execOptions = {}) => container.session.exec({ command, timeoutMs: remainingMs(), abortSignal, ...execOptions }),
    copyIn: (hostDirectory, containerDirectory) => putDirectory(options.docker, container.containerId, hostDirectory, containerDirectory),
  };
  try {
    await createAgentLogsDirectory(options.docker, container.containerId);
    const outcome = await Promise.race([options.agent.run(context), rejectOnAbort(abortSignal)]);
    recordOutcome(result, outcome);
    if (!outcome.failure) return { files: outcome.agentFiles };
    result.agentPhase.error = { code: outcome.failure.code, message: outcome.failure.message };
    return { files: outcome.agentFiles, failure: { ...outcome.failure, phase: 'agent' } };
  } catch (error) {
    if (options.abortSignal.aborted) throw new CorralError('ERR_ABORTED', 'trial cancelled during the agent phase', { cause: error });
    // An exec given "what is left of the phase" may time out a moment before the phase's own timer fires.
    const timedOut = deadline.signal.aborted || (CorralError.hasCode(error, 'SBX_ERR_TIMEOUT') && Date.now() >= deadlineMs - 1_000);
    if (timedOut) result.agentPhase.timedOut = true;
    const failure = deadline.signal.aborted ? (deadline.signal.reason as CorralError) : error;
    result.agentPhase.error = {
      code: CorralError.isInstance(failure) ? failure.code : 'RUNNER_ERR_UNEXPECTED',
      message: failure instanceof Error ? failure.message : String(failure),
    };
    const trialFailure = timedOut ? undefined : agentPhaseFailure(result.agentPhase.error);
    return { files: undefined, ...(trialFailure ? { failure: trialFailure } : {}) };
  } finally {
    clearTimeout(timer);
    deadline.abort(); // stops whatever the agent still has in flight
  }
}

/**
 * Whether an agent phase that threw errors the trial. The container is the agent's to break (a killed in-sandbox
 * agent, a full disk: SBX_ERR_*), and its deadline is its own limit: those are verified like any other attempt, so
 * an agent cannot turn its 0 into an errored trial. Anything else (the model endpoint, a missing solution, a bug)
 * is not the attempt's doing: errored, never scored.
 */
function agentPhaseFailure(error: { code: string; message: string }): TrialFailure | undefined {
  if (error.code.startsWith('SBX_ERR_')) return undefined;
  return { code: error.code, message: error.message, phase: 'agent' };
}

/** /logs/agent, world-writable (sticky) through the daemon, so an agent running as [agent].user can log there too. */
async function createAgentLogsDirectory(docker: Docker, containerId: string): Promise<void> {
  const empty = await mkdtemp(join(tmpdir(), 'corral-agent-logs-'));
  try {
    await chmod(empty, 0o1777);
    await putDirectory(docker, containerId, empty, AGENT_LOGS_DIRECTORY);
  } finally {
    await rm(empty, { recursive: true, force: true });
  }
}

async function writeAgentFiles(trialDirectory: string, files: TrialAgentOutcome['agentFiles'], result: TrialResult): Promise<void> {
  if (!files?.length) return;
  const directory = join(trialDirectory, 'agent');
  await ensureHostFolder(directory);
  for (const file of files) {
    if (!/^[\w.-]+$/.test(file.name) || file.name.startsWith('.'))
      throw new CorralError('RUNNER_ERR_UNEXPECTED', `agent file name ${file.name} is not a plain name`);
    // The container's /logs/agent may hold a file of this name: the host's version replaces it.
    await rm(join(directory, file.name), { force: true, recursive: true });
    await writeFile(join(directory, file.name), file.content, { flag: 'wx' });
  }
  result.directories.agent = directory;
}

function recordOutcome(result: TrialResult, outcome: TrialAgentOutcome): void {
  result.agentPhase.exitCode = outcome.exitCode;
  result.agentPhase.summary = outcome.summary ?? null;
  result.agentPhase.details = outcome.details ?? {};
}

async function collectAgentFiles(docker: Docker, containerId: string, task: TerminalTask, trialDirectory: string, result: TrialResult): Promise<void> {
  // Into <trial>/agent and <trial>/artifacts/<name>: folders and regular files only (see collectFromContainer).
  const logs = await collectFromContainer(docker, containerId, AGENT_LOGS_DIRECTORY, trialDirectory, { maxBytes: MAX_COLLECTED_BYTES }).catch(() => undefined);
  if (logs?.found) result.directories.agent = join(trialDirectory, 'agent');
  const artifactsDirectory = join(trialDirectory, 'artifacts');
  for (const path of task.artifacts) {
    const collected = await collectFromContainer(docker, containerId, path, artifactsDirectory, { maxBytes: MAX_COLLECTED_BYTES }).catch(() => undefined);
    if (collected?.found) result.directories.artifacts = artifactsDirectory;
  }
}

function failureOf(error: unknown, phase: TrialFailure['phase']): TrialFailure {
  if (CorralError.isInstance(error)) return { code: error.code, message: error.message, phase, details: { ...error.details } };
  return { code: 'TERMINAL_ERR_TRIAL_FAILED', message: error instanceof Error ? error.message : String(error), phase };
}

function rejectOnAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

function throwIfCancelled(signal: AbortSignal): void {
  if (signal.aborted) throw new CorralError('ERR_ABORTED', 'trial cancelled');
}

const windowStart = () => new Date().toISOString();
const windowEnd = (startedAt: string): PhaseWindow => ({ startedAt, finishedAt: new Date().toISOString() });
