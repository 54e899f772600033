/**
 * `corral eval ... --queue <redis-url>`: the same run as a local `corral eval` (the one eval flow: run directory,
 * results.jsonl records, metadata.json, progress, --resume, --max-errors, ATIF, summary and exit status), with the
 * queued executor: each rollout is a job on the Redis queue run by `corral worker` processes, possibly on other
 * machines. Each record carries extra.worker, and metadata.json's queue.rollouts maps every rollout to the worker
 * that ran it. The run id is kept in metadata.json, so --resume picks up results workers stored while no producer
 * was reading.
 */
import { randomUUID } from 'node:crypto';
import { OpenAIAgent } from '../../runner/agents/openai/openai-agent.js';
import { parseRedisUrl, redactedRedisUrl } from '../../queue/redis-connection.js';
import { type RolloutJobTemplate, openQueuedExecutor } from '../../queue/queued-executor.js';
import type { EvalExecution } from './eval-flow.js';
import type { EvalOptions } from './eval-options.js';
import { CliCodingAgent } from './cli-coding-agent.js';
import type { PreparedRun } from './prepare-run.js';
import type { RunCommand } from './run-command.js';
import type { RolloutExecutor } from '../../runner/run/rollout-executor.js';
import { runMetadata } from './run-metadata.js';

export async function queuedEvaluation(
  run: PreparedRun,
  options: EvalOptions & { queue: string },
  startedAt: number,
  log: (line: string) => void,
): Promise<EvalExecution> {
  const { command, environment, agent, examples } = run;
  const queue = await openRunQueue({
    previous: run.previous,
    options,
    job: jobTemplate(run, options),
    plannedRollouts: examples.length * command.rollouts_per_example,
    log,
  });
  return {
    executor: queue.executor,
    pacedByWorkers: true,
    metadata: runMetadata(run, options, command.backend, startedAt),
    extraMetadata: queue.extraMetadata,
    describe: `${environment.name}: ${examples.length} examples x ${command.rollouts_per_example} rollouts, agent ${agent.name} (${agent.model}), through the queue at ${queue.where}`,
    cancelling: `removing this run's waiting jobs; rollouts already running finish on the workers and --resume ${run.directory} collects them`,
    close: async () => {
      await agent.close?.().catch(() => undefined);
    },
  };
}

/**
 * The queue side of any queued run (an environment's rollouts or terminal trials): the run id (kept from metadata.json
 * on --resume, so results stored while no producer read are collected), the queued executor, and metadata.json's
 * queue field (the Redis, the run id, which worker ran each rollout).
 */
export async function openRunQueue(input: {
  previous: Record<string, unknown> | null;
  options: EvalOptions & { queue: string };
  job: RolloutJobTemplate;
  plannedRollouts: number;
  log: (line: string) => void;
}): Promise<{ executor: RolloutExecutor; extraMetadata: () => Record<string, unknown>; where: string }> {
  const redisUrl = parseRedisUrl(input.options.queue, '--queue');
  const previousQueue = (input.previous?.['queue'] ?? null) as { run_id?: unknown; rollouts?: unknown } | null;
  const runId = typeof previousQueue?.run_id === 'string' ? previousQueue.run_id : randomUUID().replace(/-/g, '');
  const rolloutWorkers: Record<string, string> = { ...((previousQueue?.rollouts as Record<string, string> | undefined) ?? {}) };
  // Before the run directory exists: an unreachable Redis refuses the start (exit 2) instead of waiting for ever.
  const executor = await openQueuedExecutor({
    redisUrl,
    runId,
    job: input.job,
    plannedRollouts: input.plannedRollouts,
    onReceived: (key, worker) => (rolloutWorkers[key] = worker),
    log: input.log,
  });
  return {
    executor,
    extraMetadata: () => ({ queue: { redis: redactedRedisUrl(redisUrl), run_id: runId, rollouts: rolloutWorkers } }),
    where: `${redactedRedisUrl(redisUrl)} (run ${runId})`,
  };
}

/** The agent of a queued job: what the worker builds its agent from (its own API key, never one sent through Redis). */
export function workerJobAgent(command: RunCommand, options: EvalOptions, baseUrl: string | null): RolloutJobTemplate['agent'] {
  return {
    name: command.agent,
    model: command.model,
    base_url: baseUrl,
    sampling_args: command.sampling_args,
    model_timeout_s: options.modelTimeout,
    model_retries: options.modelRetries,
    api_key: 'worker',
    endpoint_guard: null,
  };
}

function jobTemplate(run: PreparedRun, options: EvalOptions): RolloutJobTemplate {
  const { command, environment, agent } = run;
  return {
    environment: {
      name: environment.name,
      source: command.env,
      args: command.env_args.args ?? {},
      corpus: command.env_args.corpus,
      max_turns: command.max_turns,
    },
    agent: workerJobAgent(command, options, agent instanceof OpenAIAgent ? agent.baseURL : command.base_url),
    seed: command.seed,
    // A CLI agent runs inside a Docker sandbox: only Docker workers can take it.
    needs: { backend: agent instanceof CliCodingAgent ? 'docker' : command.backend === 'auto' ? 'any' : command.backend },
  };
}
