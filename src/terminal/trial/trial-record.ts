/**
 * A trial as one results.jsonl line, in the same layout as every environment's records: reward, one top-level key
 * per reward.json metric, error with code and boundary, and timings per phase (image, container start, agent,
 * verifier) under timing.phases. The agent phase's outcome (exit code, timeout, error) stays in info.
 */
import { ERROR_CODES } from '../../core/errors.js';
import type { ChatMessage } from '../../runner/trajectory/messages.js';
import type { ResultRecord } from '../../runner/trajectory/result-record.js';
import { type RolloutFailure, TRAJECTORY_VERSION } from '../../runner/trajectory/trajectory.js';
import type { TerminalTask } from '../terminal-task.js';
import { FINAL_FILE_SYSTEM_FILE, type FinalFileSystemOutcome } from './final-file-system.js';
import type { TrialResult } from './trial-result.js';

export const TERMINAL_ENVIRONMENT = 'terminal';

/** Image and container failures are the sandbox's; a verifier without a reward is the rubric's (the verifier is the rubric). */
const BOUNDARY_BY_PHASE = { image: 'sandbox', container: 'sandbox', agent: 'model', verifier: 'rubric' } as const;

export function trialRecord(task: TerminalTask, rolloutIndex: number, trial: TrialResult, extra: { image: string | null; trialName: string }): ResultRecord {
  const details = trial.agentPhase.details;
  const completion = Array.isArray(details['completion']) ? (details['completion'] as ChatMessage[]) : [];
  const metrics = trial.rewards ?? {};
  const timing = {
    generation_ms: trial.timings.agent_ms,
    scoring_ms: trial.timings.verifier_ms,
    total_ms: trial.timings.total_ms,
    tool_calls: Array.isArray(details['tool_calls']) ? details['tool_calls'] : [],
    phases: {
      image_ms: trial.timings.image_ms,
      container_start_ms: trial.timings.container_start_ms,
      container_wait_ms: trial.timings.container_wait_ms,
      agent_ms: trial.timings.agent_ms,
      verifier_ms: trial.timings.verifier_ms,
      commit_ms: trial.timings.commit_ms,
      test_ms: trial.timings.test_ms,
    },
  } as ResultRecord['timing'];
  return {
    ...metrics,
    version: TRAJECTORY_VERSION,
    example_id: task.name,
    rollout_index: rolloutIndex,
    task: TERMINAL_ENVIRONMENT,
    prompt: [{ role: 'user', content: task.instruction }],
    completion,
    answer: null,
    final_answer: trial.agentPhase.summary,
    info: {
      task_directory: task.directory,
      format: task.format,
      image: extra.image,
      trial_name: extra.trialName,
      reward_source: trial.rewardSource,
      agent_phase: {
        exit_code: trial.agentPhase.exitCode,
        timed_out: trial.agentPhase.timedOut,
        error: trial.agentPhase.error,
      },
      verifier_phase: trial.verifierPhase ? { exit_code: trial.verifierPhase.exitCode, timed_out: trial.verifierPhase.timedOut } : null,
      final_file_system: finalFileSystemInfo(trial.finalFileSystem, extra),
      windows: trial.windows,
    },
    reward: trial.error ? null : trial.reward,
    metrics,
    group: null,
    error: failureOf(trial),
    turns: typeof details['turns'] === 'number' ? details['turns'] : 0,
    timing,
    events: [],
    tokens: Array.isArray(details['tokens']) && details['tokens'].length > 0 ? (details['tokens'] as ResultRecord['tokens']) : null,
    truncated: false,
    usage: (details['usage'] as ResultRecord['usage']) ?? null,
    attempts: 1,
  };
}

/**
 * info.final_file_system: where the agent's final file system is kept (`path`, relative to the run directory), the
 * image its changes apply to, and their count and size; `path` null with a `reason` when it was not kept.
 */
export interface FinalFileSystemInfo {
  path: string | null;
  image: string | null;
  changes: number;
  bytes: number;
  reason?: string;
}

export function finalFileSystemInfo(outcome: FinalFileSystemOutcome | null, extra: { image: string | null; trialName: string }): FinalFileSystemInfo | null {
  if (!outcome) return null;
  return {
    path: outcome.kept ? `${extra.trialName}/${FINAL_FILE_SYSTEM_FILE}` : null,
    image: extra.image,
    changes: outcome.changes,
    bytes: outcome.bytes,
    ...(outcome.reason ? { reason: outcome.reason } : {}),
  };
}

/** The record's error; details (e.g. the build log path) ride along for the reader. */
function failureOf(trial: TrialResult): RolloutFailure | null {
  if (!trial.error) return null;
  const failure: RolloutFailure & { details?: Record<string, unknown> } = {
    boundary: BOUNDARY_BY_PHASE[trial.error.phase],
    code: trial.error.code,
    message: trial.error.message,
    // A daemon hiccup while creating the container is retried by the run driver; every other trial failure is final.
    transient: Object.hasOwn(ERROR_CODES, trial.error.code) && ERROR_CODES[trial.error.code as keyof typeof ERROR_CODES].transient,
  };
  if (trial.error.details && Object.keys(trial.error.details).length > 0) failure.details = trial.error.details;
  return failure;
}
