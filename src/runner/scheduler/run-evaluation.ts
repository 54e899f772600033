/**
 * Runs every (example, rollout index) with bounded concurrency. One rollout's failure never cancels another;
 * only transient sandbox/runner failures are retried (model retries happen inside the agent). A group (the r
 * rollouts of one example) is emitted whole, with GRPO-style mean/std/advantage, once all its rollouts finish;
 * cancelled rollouts are not emitted, so --resume redoes them.
 */
import PQueue from 'p-queue';
import { abortableDelay, backoffDelayMs } from '../../core/backoff.js';
import type { Agent } from '../agents/agent.js';
import type { DatasetSource, Environment, Example } from '../contract/environment.js';
import type { EnvironmentRolloutFactory } from '../contract/environment-rollout.js';
import type { ToolSessionFactory } from '../contract/tool-session.js';
import { type ResultRecord, resultKey } from '../trajectory/result-record.js';
import { datasetStream } from './dataset-stream.js';
import { groupFieldFor } from './group-stats.js';
import { runRollout } from './run-rollout.js';
import { toolSessionRollouts } from './tool-session-rollouts.js';

export interface EvaluationProgress {
  done: number;
  total: number;
  errored: number;
  rewardSum: number;
  scored: number;
}

/** Counts one finished rollout into the progress totals (errored, or scored with its reward). */
export function countRecord(progress: EvaluationProgress, record: ResultRecord): void {
  progress.done++;
  if (record.error) progress.errored++;
  else if (record.reward !== null) {
    progress.rewardSum += record.reward;
    progress.scored++;
  }
}

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
  concurrency: number;
  abortSignal: AbortSignal;
  /** Keys `exampleId#rolloutIndex` already done (resume). */
  skip?: ReadonlySet<string>;
  /** Records already written (resume): a group's statistics are computed over these and the new rollouts. */
  existing?: readonly ResultRecord[];
  /** Attempts per rollout for transient sandbox/runner failures (default 3). */
  maxAttempts?: number;
  seed?: number;
  onGroup: (records: ResultRecord[]) => void;
  onProgress?: (progress: EvaluationProgress) => void;
}

/** Transient failures of these boundaries are retried (locally here, through the queue by corral worker). */
export const RETRYABLE_BOUNDARIES: ReadonlySet<string> = new Set(['sandbox', 'runner', 'tool']);
/** Between attempts of one rollout: about 200 ms, then 400, 800 (jittered), as a sandbox pool recovers. */
const ROLLOUT_BACKOFF = { baseMs: 200, maxMs: 5_000 };

export async function runEvaluation(options: EvaluationOptions): Promise<EvaluationProgress> {
  const skip = options.skip ?? new Set<string>();
  // Refuses, before any rollout, an environment whose own tools or hooks a bare tool session cannot serve.
  const rollouts = options.rollouts ?? toolSessionRollouts(options.environment, options.tools!);
  const queue = new PQueue({ concurrency: options.concurrency });
  const progress: EvaluationProgress = { done: 0, total: 0, errored: 0, rewardSum: 0, scored: 0 };
  const earlierByExample = new Map<string, ResultRecord[]>();
  for (const record of options.existing ?? []) earlierByExample.set(record.example_id, [...(earlierByExample.get(record.example_id) ?? []), record]);
  const groupOf = (example: Example) => {
    const indices = Array.from({ length: options.rolloutsPerExample }, (_, index) => index).filter((index) => !skip.has(resultKey(example.id, index)));
    return { example, indices, records: [] as ResultRecord[], earlier: earlierByExample.get(example.id) ?? [] };
  };
  // A list's total is known before the first rollout (the progress bar needs it); a stream's grows as it is read.
  const listed = Array.isArray(options.examples) ? (options.examples as readonly Example[]) : undefined;
  if (listed)
    for (const example of listed.slice(0, options.limit === undefined || options.limit < 0 ? undefined : options.limit))
      progress.total += groupOf(example).indices.length;

  const runGroup = (group: ReturnType<typeof groupOf>) =>
    group.indices.map((rolloutIndex) =>
      queue
        .add(async () => {
          if (options.abortSignal.aborted) return;
          const record = await runWithRetries({ ...options, rollouts }, group.example, rolloutIndex);
          if (record.error?.code === 'RUNNER_ERR_CANCELLED') return;
          group.records.push(record);
          countRecord(progress, record);
          options.onProgress?.({ ...progress });
          if (group.records.length === group.indices.length) options.onGroup(withGroupStats(group.records, group.earlier));
        })
        // As before streams: a failing onGroup never stops the other rollouts (Promise.allSettled semantics).
        .catch(() => undefined),
    );

  for await (const example of datasetStream(options.examples, options.limit)) {
    if (options.abortSignal.aborted) break;
    const group = groupOf(example);
    if (!listed) progress.total += group.indices.length;
    runGroup(group);
    // Bounded buffering: at most `concurrency` rollouts queued beside the running ones, so a stream is read only as fast as rollouts start.
    if (queue.size >= options.concurrency) await queue.onSizeLessThan(options.concurrency);
  }
  // Queued tasks see the aborted signal and return at once (p-queue's clear() would leave their promises pending).
  await queue.onIdle();
  return progress;
}

async function runWithRetries(options: EvaluationOptions, example: Example, rolloutIndex: number): Promise<ResultRecord> {
  const maxAttempts = options.maxAttempts ?? 3;
  for (let attempt = 1; ; attempt++) {
    const record = await runRollout({
      environment: options.environment,
      agent: options.agent,
      rollouts: options.rollouts!,
      example,
      rolloutIndex,
      abortSignal: options.abortSignal,
      seed: options.seed,
    });
    record.attempts = attempt;
    const retry = record.error?.transient && RETRYABLE_BOUNDARIES.has(record.error.boundary) && attempt < maxAttempts && !options.abortSignal.aborted;
    if (!retry) return record;
    // A cancel during the wait ends the retries at once; the rollout counts as cancelled, so --resume redoes it.
    const waited = await abortableDelay(backoffDelayMs(attempt - 1, ROLLOUT_BACKOFF), options.abortSignal).then(
      () => true,
      () => false,
    );
    if (!waited)
      return { ...record, error: { boundary: 'runner', code: 'RUNNER_ERR_CANCELLED', message: 'rollout cancelled while waiting to retry', transient: false } };
  }
}

/** Statistics over the whole group: the new records and any written before a resume (the caller restates those). */
export function withGroupStats(records: ResultRecord[], earlier: readonly ResultRecord[]): ResultRecord[] {
  const members = [...earlier, ...records];
  return records.sort((a, b) => a.rollout_index - b.rollout_index).map((record) => ({ ...record, group: groupFieldFor(record, members) }));
}
