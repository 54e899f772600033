/**
 * The queued executor of the run driver (`corral eval --queue`, `corral serve --queue`): each rollout is one BullMQ
 * job on the run's capability queue, run by a `corral worker`; its record comes back through the run's result
 * stream. The driver's concurrency bounds the jobs enqueued and not yet received. Workers retry transient failures
 * through the queue (`retriesInside`). A result is dropped from Redis only once the sink wrote its whole group
 * (`written`), so a producer that dies holding half a group loses nothing; a restarted producer (same run id)
 * re-reads the stream from the start and collects what workers stored while it was away.
 */
import { Queue } from 'bullmq';
import { hostname } from 'node:os';
import type { Example } from '../runner/contract/environment.js';
import type { RolloutExecutor, RunEnd } from '../runner/run/rollout-executor.js';
import type { ResultRecord } from '../runner/trajectory/result-record.js';
import { resultKey } from '../runner/trajectory/result-record.js';
import { erroredRecord } from '../runner/run/errored-record.js';
import { QUEUE_PREFIX, RUNS_KEY, capabilityQueueName, rolloutJobId, runKeys } from './queue-keys.js';
import { assertRedisAnswers, openRedis, quiet, redactedRedisUrl } from './redis-connection.js';
import { ResultStore, type StoredResult } from './result-store.js';
import { cancelQueuedRun, clearRunCancelled } from './run-cancellation.js';
import { ROLLOUT_JOB_VERSION, type RolloutJob, jobCapability } from './rollout-job.js';
import { listWorkers, workerLost } from './worker-registry.js';
import { HEARTBEAT_MS } from './rollout-worker.js';

/** What every job of the run shares: the environment, the agent, the seed and the placement need. */
export type RolloutJobTemplate = Omit<RolloutJob, 'version' | 'run_id' | 'example' | 'rollout_index'>;

export interface QueuedExecutorOptions {
  redisUrl: URL;
  runId: string;
  job: RolloutJobTemplate;
  /** Rollouts of the whole run, those written before a resume included (the run info hash `corral queue status` shows). */
  plannedRollouts: number;
  /** Attempts per rollout for transient infrastructure failures (default 3). */
  attempts?: number;
  /** Each result as it arrives: the worker that ran it (metadata.json's queue.rollouts). */
  onReceived?: (key: string, worker: string) => void;
  log: (line: string) => void;
}

/** Most jobs added in one round trip. */
const ENQUEUE_BATCH = 200;
/** Run keys live on this long after their run ends, so a late retry still finds its key done. */
const FINISHED_RUN_TTL_S = 7 * 24 * 3600;
/** How long a cancelled run waits for Redis (a hung or lost one) before it ends regardless. */
const ABORT_GRACE_MS = 2_000;

/** Fails fast (QUEUE_ERR_REDIS_UNREACHABLE) when Redis does not answer; the run info hash is written before any job. */
export async function openQueuedExecutor(options: QueuedExecutorOptions): Promise<RolloutExecutor> {
  const redis = openRedis(options.redisUrl);
  // XREAD BLOCK holds its connection; everything else goes over the other.
  const reader = quiet(redis.duplicate());
  try {
    await assertRedisAnswers(redis, options.redisUrl);
  } catch (error) {
    reader.disconnect();
    redis.disconnect();
    throw error;
  }
  const store = new ResultStore(redis);
  const readStore = new ResultStore(reader);
  const keys = runKeys(options.runId);
  const queueName = capabilityQueueName(jobCapability(options.job));
  const queue = new Queue(queueName, { connection: redis, prefix: QUEUE_PREFIX });
  queue.on('error', (error) => options.log(`queue ${queueName}: ${error.message}`));

  let written: ReadonlySet<string> = new Set();
  /** Results read from the stream before the driver asked for their rollout (stored while the producer was away). */
  const arrived = new Map<string, StoredResult>();
  const waiting = new Map<string, (result: StoredResult) => void>();
  const toEnqueue: { job: RolloutJob; settle: (error?: unknown) => void }[] = [];
  let flushing = false;
  let stopped = false;
  let signal: AbortSignal | undefined;
  let consumer: Promise<void> = Promise.resolve();

  const deliver = (result: StoredResult) => {
    options.onReceived?.(result.key, result.worker);
    const waiter = waiting.get(result.key);
    if (waiter) {
      waiting.delete(result.key);
      waiter(result);
    } else arrived.set(result.key, result);
  };

  const consume = async () => {
    let lastId = '0';
    while (!stopped) {
      let batch: { results: StoredResult[]; lastId: string };
      try {
        batch = await readStore.read(options.runId, lastId, { count: 200, blockMs: 1_000 });
      } catch (error) {
        if (stopped) break;
        options.log(`queue: reading results failed (${(error as Error).message}); retrying`);
        await new Promise((resolve) => setTimeout(resolve, 500));
        continue;
      }
      lastId = batch.lastId;
      // Already in the sink (a resume re-reading its stream): the copy in Redis can go.
      const alreadyWritten = batch.results.filter((result) => written.has(result.key)).map((result) => result.key);
      for (const result of batch.results) if (!written.has(result.key)) deliver(result);
      await store.dropConsumed(options.runId, alreadyWritten);
    }
  };

  // In batches of what the driver has asked for (at most ENQUEUE_BATCH): one round trip checks, one adds. Each
  // rollout's promise settles once its own batch is in the queue.
  const flush = async () => {
    while (toEnqueue.length > 0) {
      const batch = toEnqueue.splice(0, ENQUEUE_BATCH);
      try {
        await enqueueBatch(batch.map((entry) => entry.job));
        for (const entry of batch) entry.settle();
      } catch (error) {
        for (const entry of batch) entry.settle(error);
      }
    }
  };
  const enqueueBatch = async (batch: RolloutJob[]) => {
    const batchKeys = batch.map((job) => resultKey(job.example.id, job.rollout_index));
    // Marked done, yet neither in Redis nor in the sink: lost between the store and the write (a torn last line).
    const lost = await store.forgetUnwritten(options.runId, batchKeys);
    if (lost.length > 0) options.log(`queue: ${lost.length} rollouts were stored but never written; running them again`);
    // Stored while the producer was away: their results are in the stream already.
    const stored = await redis.smismember(keys.done, ...batchKeys);
    const fresh = batch.filter((_, index) => stored[index] !== 1);
    if (fresh.length > 0)
      await queue.addBulk(
        fresh.map((job) => ({
          name: 'rollout',
          data: job,
          opts: {
            jobId: rolloutJobId(job.run_id, job.example.id, job.rollout_index),
            attempts: options.attempts ?? 3,
            backoff: { type: 'exponential', delay: 200 },
            removeOnComplete: true,
            removeOnFail: { count: 1_000 },
          },
        })),
      );
    await redis.hincrby(keys.info, 'enqueued', batch.length);
  };
  const enqueue = (job: RolloutJob): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      toEnqueue.push({ job, settle: (error?: unknown) => (error === undefined ? resolve() : reject(error as Error)) });
      scheduleFlush();
    });
  // Rollouts asked for in the same turn of the event loop go in one batch; one flush runs at a time, and one that
  // ends with rollouts still waiting (asked for while it finished) schedules the next.
  const scheduleFlush = () => {
    if (flushing) return;
    flushing = true;
    setImmediate(
      () =>
        void flush().finally(() => {
          flushing = false;
          if (toEnqueue.length > 0) scheduleFlush();
        }),
    );
  };

  const recordOf = (result: StoredResult, example: Example, rolloutIndex: number): ResultRecord => {
    if (result.unreadable === undefined) return result.record;
    // An unreadable stored result becomes the errored record of its job (logged with its code), never a stall.
    options.log(`queue: QUEUE_ERR_INVALID_RESULT: ${result.unreadable}; recorded as errored`);
    const identity = { example, rollout_index: rolloutIndex, environment: { name: options.job.environment.name } };
    return erroredRecord(identity, { code: 'QUEUE_ERR_INVALID_RESULT', message: result.unreadable }, 1);
  };

  return {
    retriesInside: true,
    async begin(alreadyWritten) {
      written = alreadyWritten;
      await redis.sadd(RUNS_KEY, options.runId);
      // A resumed run that was cancelled runs again.
      await clearRunCancelled(redis, options.runId);
      await redis.hset(keys.info, {
        queue: queueName,
        total: String(Math.max(0, options.plannedRollouts - alreadyWritten.size)),
        producer: `${hostname()}:${process.pid}`,
        started_at: new Date().toISOString(),
        enqueued: '0',
      });
      await warnWithoutWorkers(redis, queueName, options);
      consumer = consume();
      consumer.catch((error: unknown) => options.log(`queue: the result reader stopped: ${(error as Error).message}`));
    },
    async run({ example, rolloutIndex, abortSignal }) {
      signal = abortSignal;
      if (abortSignal.aborted) return undefined;
      const key = resultKey(example.id, rolloutIndex);
      const early = arrived.get(key);
      if (early) {
        arrived.delete(key);
        return recordOf(early, example, rolloutIndex);
      }
      const received = new Promise<StoredResult>((resolve) => waiting.set(key, resolve));
      const job: RolloutJob = { ...options.job, version: ROLLOUT_JOB_VERSION, run_id: options.runId, example, rollout_index: rolloutIndex };
      // A cancel ends the wait at once, also on a Redis that hangs; the job stays for --resume (or end() removes it).
      let onAbort = () => undefined as void;
      const cancelled = new Promise<undefined>((resolve) => {
        onAbort = () => resolve(undefined);
        abortSignal.addEventListener('abort', onAbort, { once: true });
      });
      const enqueued = enqueue(job);
      enqueued.catch(() => undefined);
      const result = await Promise.race([Promise.all([enqueued, received]).then(([, stored]) => stored), cancelled]).finally(() =>
        abortSignal.removeEventListener('abort', onAbort),
      );
      if (result === undefined) {
        waiting.delete(key);
        return undefined;
      }
      return recordOf(result, example, rolloutIndex);
    },
    async written(writtenKeys) {
      await withinGraceAfter(signal, store.dropConsumed(options.runId, writtenKeys));
    },
    async end(outcome: RunEnd) {
      stopped = true;
      try {
        if (outcome.cancelled) await cancelWaitingJobs(redis, options);
        else if (outcome.complete)
          await withinGraceAfter(
            AbortSignal.abort(),
            (async () => {
              await redis.srem(RUNS_KEY, options.runId);
              for (const key of Object.values(keys)) await redis.expire(key, FINISHED_RUN_TTL_S);
            })(),
          );
        await withinGraceAfter(AbortSignal.abort(), Promise.all([consumer, queue.close()]));
      } finally {
        reader.disconnect();
        // Every command was awaited; quit() would wait for a Redis that never answered (and hang the process).
        redis.disconnect();
      }
    },
  };
}

/** Waits for `work`, but once `signal` is aborted, at most ABORT_GRACE_MS more (a hung Redis never hangs the run). */
async function withinGraceAfter(signal: AbortSignal | undefined, work: Promise<unknown>): Promise<void> {
  work.catch(() => undefined);
  if (!signal) return void (await work);
  const grace = new Promise<void>((resolve) => {
    const onAbort = () => setTimeout(resolve, ABORT_GRACE_MS).unref();
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  await Promise.race([work.then(() => undefined), grace]);
}

/** A cancelled run's waiting jobs leave the queue, so no later worker runs them; a Redis that is gone only costs a line. */
async function cancelWaitingJobs(redis: ReturnType<typeof openRedis>, options: QueuedExecutorOptions): Promise<void> {
  try {
    // A Redis that went away (or hangs) gets the grace, then the line that says how to remove the jobs later.
    const gaveUp = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`Redis at ${redactedRedisUrl(options.redisUrl)} did not answer`)), ABORT_GRACE_MS).unref(),
    );
    const outcome = await Promise.race([cancelQueuedRun(redis, options.runId, { mustExist: false }), gaveUp]);
    options.log(`cancelled: ${outcome.removed} waiting rollouts removed from the queue`);
  } catch (error) {
    options.log(
      `could not remove this run's waiting jobs (${(error as Error).message}); later: corral queue cancel ${options.runId} --redis ${redactedRedisUrl(options.redisUrl)}`,
    );
  }
}

async function warnWithoutWorkers(redis: ReturnType<typeof openRedis>, queueName: string, options: QueuedExecutorOptions): Promise<void> {
  const workers = (await listWorkers(redis)).filter((worker) => worker.queues.includes(queueName) && !workerLost(worker, HEARTBEAT_MS));
  if (workers.length === 0)
    options.log(
      `queue: no live worker at ${redactedRedisUrl(options.redisUrl)} serves ${queueName} yet; rollouts wait until one joins (corral worker --redis ... --env ...)`,
    );
  else options.log(`queue: ${workers.length} workers serve ${queueName}: ${workers.map((worker) => worker.name).join(', ')}`);
}
