/** A finished trial as the Harbor job layout's plain input (src/terminal/harbor-job-input.ts). */
import { corralVersion } from '../../core/project-root.js';
import type { HarborTrialInput } from '../harbor-job-input.js';
import type { TerminalTask } from '../terminal-task.js';
import type { TrialResult } from './trial-result.js';

export function harborTrialInput(
  task: TerminalTask,
  trial: TrialResult,
  run: { trialName: string; rolloutIndex: number; modelName: string | null; datasetName: string; timeoutMultiplier: number },
): HarborTrialInput {
  const window = (phase: { startedAt: string; finishedAt: string } | undefined) =>
    phase ? { startedAt: phase.startedAt, finishedAt: phase.finishedAt } : undefined;
  const usage = trial.agentPhase.details['usage'] as { prompt_tokens?: number; completion_tokens?: number } | null | undefined;
  return {
    taskName: task.name,
    trialName: run.trialName,
    taskDirectory: task.directory,
    datasetName: run.datasetName,
    agent: { name: trial.agent, version: corralVersion(), modelName: run.modelName },
    rewards: trial.error ? null : trial.rewards,
    exception: trial.error ? { type: trial.error.code, message: trial.error.message, occurredAt: trial.windows.trial.finishedAt } : null,
    startedAt: trial.windows.trial.startedAt,
    finishedAt: trial.windows.trial.finishedAt,
    phases: {
      ...(trial.windows.container ? { environmentSetup: window(trial.windows.container) } : {}),
      ...(trial.windows.agent ? { agentExecution: window(trial.windows.agent) } : {}),
      ...(trial.windows.verifier ? { verifier: window(trial.windows.verifier) } : {}),
    },
    ...(usage ? { usage: { inputTokens: usage.prompt_tokens ?? null, outputTokens: usage.completion_tokens ?? null } } : {}),
    agentMetadata: {
      example_id: task.name,
      rollout_index: run.rolloutIndex,
      exit_code: trial.agentPhase.exitCode,
      timed_out: trial.agentPhase.timedOut,
      error: trial.agentPhase.error,
    },
    timeoutMultiplier: run.timeoutMultiplier,
  };
}
