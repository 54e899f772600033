/**
 * `corral eval ... --queue <redis-url>`: the same run as a local `corral eval` (run directory, results.jsonl
 * records, metadata.json, progress, --resume, --max-errors, summary and exit status), but each rollout is a job
 * on the Redis queue run by `corral worker` processes, possibly on other machines. Records arrive in order of
 * completion and are written a whole group at a time, as locally; each carries extra.worker, and metadata.json's
 * queue.rollouts maps every rollout to the worker that ran it. The run id is kept in metadata.json, so --resume
 * picks up results workers stored while no producer was reading.
 */
import { randomUUID } from 'node:crypto';
import { CLI_AGENT_NAMES } from '../../cli-agents/cli-agent-registry.js';
import type { Example } from '../../runner/contract/environment.js';
import { OpenAIAgent } from '../../runner/agents/openai/openai-agent.js';
import { withGroupStats } from '../../runner/scheduler/run-evaluation.js';
import { countRecord, emptyProgress } from '../../runner/run/run-progress.js';
import { type ResultRecord, resultKey } from '../../runner/trajectory/result-record.js';
import { ResultsWriter } from '../../runner/trajectory/results-writer.js';
import { parseRedisUrl, redactedRedisUrl, withRedis } from '../../queue/redis-connection.js';
import { cancelQueuedRun } from '../../queue/run-cancellation.js';
import type { RolloutJob } from '../../queue/rollout-job.js';
import { ROLLOUT_JOB_VERSION } from '../../queue/rollout-job.js';
import { runQueued } from '../../queue/rollout-producer.js';
import { type EvalOptions, maxErrorsLimit } from '../eval/eval-options.js';
import type { PreparedRun } from '../eval/prepare-run.js';
import { createProgressDisplay } from '../eval/progress-display.js';
import { runMetadata, writeRunningMetadata } from '../eval/run-metadata.js';

export interface QueuedRunOutcome {
  directory: string;
  metadata: Record<string, unknown>;
  startedAt: number;
  plannedRollouts: number;
  rolloutsPerExample: number;
  stoppedByMaxErrors: boolean;
  cancelled: boolean;
}

export async function runQueuedEvaluation(run: PreparedRun, options: EvalOptions & { queue: string }, log: (line: string) => void): Promise<QueuedRunOutcome> {
  const redisUrl = parseRedisUrl(options.queue, '--queue');
  const { command, environment, agent, examples, directory, previous } = run;
  const rolloutsPerExample = command.rollouts_per_example;
  const previousQueue = (previous?.['queue'] ?? null) as { run_id?: unknown; rollouts?: unknown } | null;
  const runId = typeof previousQueue?.run_id === 'string' ? previousQueue.run_id : randomUUID().replace(/-/g, '');
  const rolloutWorkers: Record<string, string> = { ...((previousQueue?.rollouts as Record<string, string> | undefined) ?? {}) };
  // Before the run directory exists: an unreachable Redis refuses the start (exit 2) instead of waiting for ever.
  await withRedis(redisUrl, () => Promise.resolve());
  const writer = ResultsWriter.open(directory);
  const startedAt = Date.now();
  const plannedRollouts = examples.length * rolloutsPerExample;
  const metadata: Record<string, unknown> = runMetadata(run, options, command.backend, startedAt);
  const queueMetadata = () => ({ queue: { redis: redactedRedisUrl(redisUrl), run_id: runId, rollouts: rolloutWorkers } });
  const controller = new AbortController();
  let stoppedByMaxErrors = false;
  const onSignal = () => {
    if (controller.signal.aborted) {
      writer.writeMetadata({ ...metadata, ...queueMetadata(), status: 'cancelled', updated_at: new Date().toISOString() });
      process.exit(130);
    }
    log(`cancelling: removing this run's waiting jobs; rollouts already running finish on the workers and --resume ${directory} collects them`);
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const progress = emptyProgress();
  const alreadyDone = writer.completed.size;
  const heartbeat = () =>
    writeRunningMetadata(
      writer,
      { ...metadata, ...queueMetadata() },
      { done: alreadyDone + progress.done, total: plannedRollouts, errored_this_session: progress.errored },
      log,
    );
  heartbeat();
  const heartbeatTimer = setInterval(heartbeat, Math.max(1, options.progressInterval) * 1000);
  heartbeatTimer.unref();

  const jobs: RolloutJob[] = [];
  const groups = new Map<string, { pending: number; records: ResultRecord[]; earlier: ResultRecord[] }>();
  for (const example of examples) {
    const indices = Array.from({ length: rolloutsPerExample }, (_, index) => index).filter((index) => !writer.completed.has(resultKey(example.id, index)));
    if (indices.length === 0) continue;
    groups.set(example.id, { pending: indices.length, records: [], earlier: writer.existing.filter((record) => record.example_id === example.id) });
    for (const rolloutIndex of indices) jobs.push(jobFor(run, options, runId, example, rolloutIndex));
  }
  progress.total = jobs.length;
  const errorLimit = maxErrorsLimit(options.maxErrors, plannedRollouts);
  const display = createProgressDisplay(progress.total, { enabled: options.progress, tty: process.stderr.isTTY === true, intervalS: options.progressInterval });
  log(
    `${environment.name}: ${examples.length} examples x ${rolloutsPerExample} rollouts, agent ${agent.name} (${agent.model}), through the queue at ${redactedRedisUrl(redisUrl)} (run ${runId}), ${alreadyDone} already done -> ${directory}`,
  );
  try {
    await runQueued({
      redisUrl,
      runId,
      jobs,
      maxDepth: options.concurrency,
      abortSignal: controller.signal,
      log,
      onResult: ({ record, worker }) => {
        const group = groups.get(record.example_id);
        if (!group) return [];
        rolloutWorkers[resultKey(record.example_id, record.rollout_index)] = worker;
        group.records.push(record);
        group.pending--;
        countRecord(progress, record);
        display.update({ ...progress });
        if (progress.errored > errorLimit && !controller.signal.aborted) {
          stoppedByMaxErrors = true;
          log(
            `stopping: ${progress.errored} rollouts errored, more than --max-errors ${options.maxErrors} allows (${errorLimit}); queued rollouts are left to --resume`,
          );
          controller.abort();
        }
        if (group.pending > 0) return [];
        writer.append(withGroupStats(group.records, group.earlier));
        return group.records.map((member) => resultKey(member.example_id, member.rollout_index));
      },
    });
    if (controller.signal.aborted && !stoppedByMaxErrors) await cancelWaitingJobs(redisUrl, runId, log);
  } finally {
    clearInterval(heartbeatTimer);
    display.stop();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await agent.close?.().catch(() => undefined);
    writer.close();
  }
  return {
    directory,
    metadata: { ...metadata, ...queueMetadata() },
    startedAt,
    plannedRollouts,
    rolloutsPerExample,
    stoppedByMaxErrors,
    cancelled: controller.signal.aborted && !stoppedByMaxErrors,
  };
}

/** A cancelled run's waiting jobs leave the queue, so no later worker runs them; a Redis that is gone only costs a line. */
async function cancelWaitingJobs(redisUrl: URL, runId: string, log: (line: string) => void): Promise<void> {
  try {
    const outcome = await withRedis(redisUrl, (redis) => cancelQueuedRun(redis, runId, { mustExist: false }));
    log(`cancelled: ${outcome.removed} waiting rollouts removed from the queue`);
  } catch (error) {
    log(`could not remove this run's waiting jobs (${(error as Error).message}); later: corral queue cancel ${runId} --redis ${redactedRedisUrl(redisUrl)}`);
  }
}

function jobFor(run: PreparedRun, options: EvalOptions, runId: string, example: Example, rolloutIndex: number): RolloutJob {
  const { command, environment, agent } = run;
  return {
    version: ROLLOUT_JOB_VERSION,
    run_id: runId,
    example,
    rollout_index: rolloutIndex,
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
    needs: { backend: CLI_AGENT_NAMES.includes(command.agent) ? 'docker' : command.backend === 'auto' ? 'any' : command.backend },
  };
}
