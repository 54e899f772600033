import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { CorralError } from '../../core/errors.js';
import { errorMessage } from '../../sandbox/docker/docker-errors.js';
import { ensureHostFolder } from '../host-folder.js';
import type { TerminalTask } from '../terminal-task.js';
import { runAgentPhase } from './agent-phase.js';
import { collectFromContainer } from './container-archive.js';
import { type FinalFileSystemOutcome, fileSystemChanges, keepFinalFileSystem } from './final-file-system.js';
import type { TrialAgent, TrialAgentOutcome } from './trial-agent.js';
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
  /** Keep the agent's final file system in the trial folder, for re-verifying later (`corral rescore`); default false. */
  keepFinalFileSystem?: boolean;
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
    finalFileSystem: null,
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
    // The diff is read from the container itself (an image has none), before the commit lets the container go.
    const changes = options.keepFinalFileSystem !== true ? undefined : await fileSystemChanges(options.docker, stopped.containerId).catch(() => undefined);
    let kept: FinalFileSystemOutcome | undefined;
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
      ...(changes
        ? {
            alongside: async (committedImage: string) => {
              kept = await keepFinalFileSystem(options.docker, {
                task,
                committedImage,
                changes,
                trialDirectory: options.trialDirectory,
                abortSignal: options.abortSignal,
              });
            },
          }
        : {}),
    });
    if (options.keepFinalFileSystem === true)
      result.finalFileSystem = kept ?? {
        kept: false,
        changes: changes?.length ?? 0,
        bytes: 0,
        reason: 'the verifier phase failed before the commit, or the diff could not be read',
      };
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

function throwIfCancelled(signal: AbortSignal): void {
  if (signal.aborted) throw new CorralError('ERR_ABORTED', 'trial cancelled');
}

const windowStart = () => new Date().toISOString();
const windowEnd = (startedAt: string): PhaseWindow => ({ startedAt, finishedAt: new Date().toISOString() });
