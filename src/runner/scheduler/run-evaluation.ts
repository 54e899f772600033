/**
 * runEvaluation: the run driver (src/runner/run/run-driver.ts) with the local executor and groups handed to a
 * callback, for library users, benchmarks and tests that run an environment in process. Same semantics as every
 * run: whole groups with GRPO-style statistics, transient failures retried, cancelled rollouts not emitted.
 */
import type { Agent } from '../agents/agent.js';
import type { DatasetSource, Environment } from '../contract/environment.js';
import type { EnvironmentRolloutFactory } from '../contract/environment-rollout.js';
import type { ToolSessionFactory } from '../contract/tool-session.js';
import type { ResultRecord } from '../trajectory/result-record.js';
import { localExecutor } from '../run/local-executor.js';
import { runDriver } from '../run/run-driver.js';
import type { RunAdmission } from '../run/admission/admission-controller.js';
import type { RunProgress } from '../run/run-progress.js';

export type EvaluationProgress = Omit<RunProgress, 'alreadyDone'>;

export interface EvaluationOptions {
  environment: Environment;
  agent: Agent;
  /** Opens each rollout's environment session; required for environments with their own tools, setup or cleanup. */
  rollouts?: EnvironmentRolloutFactory;
  /** Instead of `rollouts`, for environments of toolsets, dataset and rubric only. */
  tools?: ToolSessionFactory;
  /** A list, or a stream pulled lazily with bounded buffering (progress.total then grows as examples arrive). */
  examples: DatasetSource;
  /** Run at most the first n examples of `examples` (-1 or undefined: all). */
  limit?: number;
  rolloutsPerExample: number;
  /** A fixed number, or an admission controller (runner/run/admission) for `-c auto`. */
  concurrency: number | RunAdmission;
  abortSignal: AbortSignal;
  /** Records already written (resume): their keys are skipped, and a group's statistics cover them and the new rollouts. */
  existing?: readonly ResultRecord[];
  /** Attempts per rollout for transient sandbox/runner failures (default 3). */
  maxAttempts?: number;
  seed?: number;
  /** In an environment with roles: the agent of each role named here; the other roles play `agent` (self-play). */
  roleAgents?: Readonly<Record<string, Agent>>;
  onGroup: (records: ResultRecord[]) => void;
  onProgress?: (progress: EvaluationProgress) => void;
}

export async function runEvaluation(options: EvaluationOptions): Promise<EvaluationProgress> {
  // The in-process spelling of the run driver: the local executor and a sink that hands groups to onGroup.
  const executor = localExecutor({
    environment: options.environment,
    agent: options.agent,
    ...(options.rollouts ? { rollouts: options.rollouts } : {}),
    ...(options.tools ? { tools: options.tools } : {}),
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.roleAgents ? { roleAgents: options.roleAgents } : {}),
  });
  const outcome = await runDriver({
    task: options.environment.name,
    examples: options.examples,
    ...(options.limit === undefined ? {} : { limit: options.limit }),
    rolloutsPerExample: options.rolloutsPerExample,
    concurrency: options.concurrency,
    executor,
    sink: { existing: options.existing ?? [], writeGroup: (records) => options.onGroup(records) },
    abortSignal: options.abortSignal,
    ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
  const { alreadyDone: _alreadyDone, ...progress } = outcome.progress;
  return progress;
}
