/**
 * The agent phase of a trial: /logs/agent made, then the agent under [agent].timeout_sec x --timeout-multiplier,
 * its outcome on the result, and whether it errors the trial (only when the agent could not work for a reason
 * outside the task; see agentPhaseFailure).
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { CorralError } from '../../core/errors.js';
import { putDirectory } from './container-archive.js';
import type { TrialOptions } from './run-trial.js';
import type { TrialAgentContext, TrialAgentOutcome } from './trial-agent.js';
import { AGENT_LOGS_DIRECTORY } from './trial-container-options.js';
import type { TrialContainer } from './trial-container.js';
import type { TrialFailure, TrialResult } from './trial-result.js';

/**
 * Runs the agent under its deadline; returns the files its host side wants in <trial>/agent/ and, when the agent
 * could not work for a reason outside the task, the failure that errors the trial (see agentPhaseFailure).
 */
export async function runAgentPhase(
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

function recordOutcome(result: TrialResult, outcome: TrialAgentOutcome): void {
  result.agentPhase.exitCode = outcome.exitCode;
  result.agentPhase.summary = outcome.summary ?? null;
  result.agentPhase.details = outcome.details ?? {};
}

function rejectOnAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}
