/**
 * The one run driver: every way of running rollouts (corral eval, --queue, /v1/rollouts, terminal trials) is an
 * executor and a sink handed to it. It owns examples x rollouts-per-example scheduling with bounded concurrency,
 * groups and their statistics, progress and the heartbeat, --max-errors, cancellation, resume keys (from the
 * sink) and retries of transient failures. One rollout's failure never cancels another; cancelled rollouts are not
 * recorded, so --resume redoes them. A group (the r rollouts of one example) is written whole, once all finish.
 */
import { setMaxListeners } from 'node:events';
import PQueue from 'p-queue';
import { abortableDelay, backoffDelayMs } from '../../core/backoff.js';
import type { DatasetSource, Example } from '../contract/environment.js';
import { datasetStream } from '../scheduler/dataset-stream.js';
import { withGroupStats } from '../scheduler/group-stats.js';
import { describeFailure } from '../scheduler/rollout-error.js';
import { type ResultRecord, resultKey } from '../trajectory/result-record.js';
import { erroredRecord } from './errored-record.js';
import type { RunAdmission } from './admission/admission-controller.js';
import type { RecordSink } from './record-sink.js';
import type { RolloutExecutor } from './rollout-executor.js';
import type { CanaryRunner, Quarantine } from './canaries/canary-contract.js';
import { type RunProgress, countRecord, emptyProgress } from './run-progress.js';

export interface RunDriverOptions {
  /** The environment's name: the task of a record the driver has to make itself (an executor that threw). */
  task: string;
  /** A list, or a stream pulled lazily with bounded buffering (progress.total then grows as examples arrive). */
  examples: DatasetSource;
  /** Run at most the first n examples (-1 or undefined: all). */
  limit?: number;
  rolloutsPerExample: number;
  /** Rollouts in flight: a fixed number (-c N), or an admission controller (-c auto; admission/admission-controller.ts). */
  concurrency: number | RunAdmission;
  executor: RolloutExecutor;
  sink: RecordSink;
  abortSignal: AbortSignal;
  /** Stop (cancelling what is in flight) once more rollouts than this have errored in this session. */
  maxErrors?: number;
  /** --max-errors as the user wrote it (e.g. "5%"), for the line that says why the run stopped. */
  maxErrorsAsGiven?: string;
  /** Attempts per rollout for transient sandbox/runner/tool failures (default 3), unless the executor retries inside. */
  maxAttempts?: number;
  /** Heartbeat period (default 5 s): sink.heartbeat runs on it and after every group. */
  heartbeatMs?: number;
  onProgress?: (progress: RunProgress) => void;
  log?: (line: string) => void;
  /**
   * Live canaries (canaries/): before an example's group runs, the oracle and floor pair runs in one of the run's
   * slots; the outcome goes to sink.writeCanary, and a quarantine flags every record of the group. Never counted.
   */
  canaries?: CanaryRunner;
}

export interface RunOutcome {
  progress: RunProgress;
  /** --max-errors stopped the run. */
  stoppedByMaxErrors: boolean;
  /** The caller's signal cancelled the run (Ctrl-C, a closed HTTP stream). */
  cancelled: boolean;
}

/** Transient failures of these boundaries are retried (by the driver, or through the queue by corral worker). */
export const RETRYABLE_BOUNDARIES: ReadonlySet<string> = new Set(['sandbox', 'runner', 'tool']);
/** Between attempts of one rollout: about 200 ms, then 400, 800 (jittered), as a sandbox pool recovers. */
const ROLLOUT_BACKOFF = { baseMs: 200, maxMs: 5_000 };
const DEFAULT_HEARTBEAT_MS = 5_000;

interface Group {
  example: Example;
  indices: number[];
  records: ResultRecord[];
  earlier: readonly ResultRecord[];
  quarantine?: Quarantine;
}

export async function runDriver(options: RunDriverOptions): Promise<RunOutcome> {
  const earlierByExample = new Map<string, ResultRecord[]>();
  for (const record of options.sink.existing) earlierByExample.set(record.example_id, [...(earlierByExample.get(record.example_id) ?? []), record]);
  const done = new Set(options.sink.existing.map((record) => resultKey(record.example_id, record.rollout_index)));
  const progress = emptyProgress(done.size);
  // The driver's own signal: the caller's cancel, or --max-errors.
  const controller = new AbortController();
  // Every rollout in flight listens on it (its agent, its sandbox, a queued job's wait): not a leak.
  setMaxListeners(0, controller.signal);
  const onCallerAbort = () => controller.abort();
  if (options.abortSignal.aborted) controller.abort();
  else options.abortSignal.addEventListener('abort', onCallerAbort, { once: true });
  let stoppedByMaxErrors = false;
  const heartbeat = () => {
    try {
      options.sink.heartbeat?.({ ...progress });
    } catch (error) {
      options.log?.(`heartbeat failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  heartbeat();
  const timer = setInterval(heartbeat, options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS);
  timer.unref();
  // With an admission controller the queue bounds rollouts at its ceiling and the controller's gate at its level.
  const admission = typeof options.concurrency === 'number' ? undefined : options.concurrency;
  const slots = admission?.maxConcurrency ?? (options.concurrency as number);
  const queue = new PQueue({ concurrency: slots });
  const groupOf = (example: Example): Group => ({
    example,
    indices: Array.from({ length: options.rolloutsPerExample }, (_, index) => index).filter((index) => !done.has(resultKey(example.id, index))),
    records: [],
    earlier: earlierByExample.get(example.id) ?? [],
  });

  const finishRollout = async (group: Group, record: ResultRecord) => {
    group.records.push(record);
    countRecord(progress, record);
    options.onProgress?.({ ...progress });
    if (options.maxErrors !== undefined && progress.errored > options.maxErrors && !controller.signal.aborted) {
      stoppedByMaxErrors = true;
      options.log?.(
        `stopping: ${progress.errored} rollouts errored, more than --max-errors ${options.maxErrorsAsGiven ?? options.maxErrors} allows (${options.maxErrors}); in-flight rollouts are cancelled and --resume redoes them`,
      );
      controller.abort();
    }
    if (group.records.length < group.indices.length) return;
    const members = [...group.earlier, ...group.records];
    const flag = group.quarantine ? { quarantine: group.quarantine } : {};
    const records = group.records.sort((a, b) => a.rollout_index - b.rollout_index).map((each) => ({ ...withGroupStats(each, members), ...flag }));
    await options.sink.writeGroup(records);
    heartbeat();
    await options.executor.written?.(records.map((each) => resultKey(each.example_id, each.rollout_index)));
  };

  const startGroup = async (group: Group) => {
    if (group.indices.length === 0) return;
    const canaries = options.canaries;
    if (!canaries) return scheduleRollouts(group);
    queue
      .add(async () => {
        try {
          const outcome = controller.signal.aborted ? undefined : await canaries.check(group.example, controller.signal);
          if (outcome?.quarantine) group.quarantine = outcome.quarantine;
          if (outcome) await options.sink.writeCanary?.(outcome);
        } catch (error) {
          // A canary that cannot run or be written never costs the example its rollouts.
          options.log?.(`canaries of ${group.example.id}: ${error instanceof Error ? error.message : String(error)}`);
        }
        await scheduleRollouts(group);
      })
      .catch((error: unknown) => options.log?.(`could not start the group of ${group.example.id}: ${error instanceof Error ? error.message : String(error)}`));
  };

  const scheduleRollouts = async (group: Group) => {
    await options.executor.plan?.(group.example, group.indices.length);
    for (const rolloutIndex of group.indices)
      queue
        .add(async () => {
          if (controller.signal.aborted) return;
          const attempts = () => runWithRetries(options, controller.signal, group.example, rolloutIndex);
          const record = admission ? await admission.run(controller.signal, attempts) : await attempts();
          if (record === undefined || record.error?.code === 'RUNNER_ERR_CANCELLED') return;
          await finishRollout(group, record);
        })
        // A failing sink never stops the other rollouts; it is logged, and the run ends incomplete (resume redoes the group).
        .catch((error: unknown) => options.log?.(`could not write a group of ${group.example.id}: ${error instanceof Error ? error.message : String(error)}`));
  };

  let outcome: RunOutcome | undefined;
  try {
    await options.executor.begin?.(done);
    // A list's total is known before the first rollout (the progress bar needs it); a stream's grows as it is read.
    const listed = Array.isArray(options.examples) ? (options.examples as readonly Example[]) : undefined;
    const limit = options.limit === undefined || options.limit < 0 ? undefined : options.limit;
    if (listed) for (const example of listed.slice(0, limit)) progress.total += groupOf(example).indices.length;
    for await (const example of datasetStream(options.examples, options.limit)) {
      if (controller.signal.aborted) break;
      const group = groupOf(example);
      if (!listed) progress.total += group.indices.length;
      await startGroup(group);
      // Bounded buffering: at most `concurrency` rollouts queued beside the running ones.
      if (queue.size >= slots) await queue.onSizeLessThan(slots);
    }
    // Queued tasks see the aborted signal and return at once (p-queue's clear() would leave their promises pending).
    await queue.onIdle();
    outcome = { progress, stoppedByMaxErrors, cancelled: options.abortSignal.aborted };
  } finally {
    clearInterval(timer);
    options.abortSignal.removeEventListener('abort', onCallerAbort);
    heartbeat();
    const cancelled = options.abortSignal.aborted;
    const complete = outcome !== undefined && !controller.signal.aborted && progress.done === progress.total;
    await options.executor.end?.({ cancelled, stoppedByMaxErrors, complete });
  }
  return outcome;
}

async function runWithRetries(options: RunDriverOptions, signal: AbortSignal, example: Example, rolloutIndex: number): Promise<ResultRecord | undefined> {
  const maxAttempts = options.executor.retriesInside ? 1 : (options.maxAttempts ?? 3);
  for (let attempt = 1; ; attempt++) {
    let record: ResultRecord | undefined;
    try {
      record = await options.executor.run({ example, rolloutIndex, attempt, abortSignal: signal });
    } catch (error) {
      // An executor that throws is a bug or a lost backend: an errored rollout, never reward 0.
      const failure = describeFailure(error, 'runner');
      const identity = { example, rollout_index: rolloutIndex, environment: { name: options.task } };
      record = { ...erroredRecord(identity, { code: 'RUNNER_ERR_UNEXPECTED', message: failure.message }, attempt), error: failure };
    }
    if (record === undefined) return undefined;
    if (!options.executor.retriesInside) record.attempts = attempt;
    const retry = record.error?.transient && RETRYABLE_BOUNDARIES.has(record.error.boundary) && attempt < maxAttempts && !signal.aborted;
    if (!retry) return record;
    // A cancel during the wait ends the retries at once; the rollout counts as cancelled, so --resume redoes it.
    const waited = await abortableDelay(backoffDelayMs(attempt - 1, ROLLOUT_BACKOFF), signal).then(
      () => true,
      () => false,
    );
    if (!waited) return undefined;
  }
}
