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
import { runMetadata } from './run-metadata.js';

export async function queuedEvaluation(
  run: PreparedRun,
  options: EvalOptions & { queue: string },
  startedAt: number,
  log: (line: string) => void,
): Promise<EvalExecution> {
  const redisUrl = parseRedisUrl(options.queue, '--queue');
  const { command, environment, agent, examples, previous } = run;
  const previousQueue = (previous?.['queue'] ?? null) as { run_id?: unknown; rollouts?: unknown } | null;
  const runId = typeof previousQueue?.run_id === 'string' ? previousQueue.run_id : randomUUID().replace(/-/g, '');
  const rolloutWorkers: Record<string, string> = { ...((previousQueue?.rollouts as Record<string, string> | undefined) ?? {}) };
  // Before the run directory exists: an unreachable Redis refuses the start (exit 2) instead of waiting for ever.
  const executor = await openQueuedExecutor({
    redisUrl,
    runId,
    job: jobTemplate(run, options),
    plannedRollouts: examples.length * command.rollouts_per_example,
    onReceived: (key, worker) => (rolloutWorkers[key] = worker),
    log,
  });
  return {
    executor,
    metadata: runMetadata(run, options, command.backend, startedAt),
    extraMetadata: () => ({ queue: { redis: redactedRedisUrl(redisUrl), run_id: runId, rollouts: rolloutWorkers } }),
    describe: `${environment.name}: ${examples.length} examples x ${command.rollouts_per_example} rollouts, agent ${agent.name} (${agent.model}), through the queue at ${redactedRedisUrl(redisUrl)} (run ${runId})`,
    cancelling: `removing this run's waiting jobs; rollouts already running finish on the workers and --resume ${run.directory} collects them`,
    close: async () => {
      await agent.close?.().catch(() => undefined);
    },
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
    agent: {
      name: command.agent,
      model: command.model,
      base_url: agent instanceof OpenAIAgent ? agent.baseURL : command.base_url,
      sampling_args: command.sampling_args,
      model_timeout_s: options.modelTimeout,
      model_retries: options.modelRetries,
      api_key: 'worker',
      endpoint_guard: null,
    },
    seed: command.seed,
    // A CLI agent runs inside a Docker sandbox: only Docker workers can take it.
    needs: { backend: agent instanceof CliCodingAgent ? 'docker' : command.backend === 'auto' ? 'any' : command.backend },
  };
}
