/**
 * The producer side of a queued run (`corral eval --queue`, `corral serve --queue`): enqueues one BullMQ job per
 * rollout on the run's capability queue, never more than `maxDepth` beyond the results received (the producer
 * waits: bounded depth per run), and pulls results from the run's stream in order of completion, deduplicated by
 * result key. Each result is handed to `onResult` (which writes it), then dropped from Redis. A restarted producer
 * (--resume, same run id) re-reads the stream from the start, so nothing stored while it was away is lost.
 */
import { Queue } from 'bullmq';
import { hostname } from 'node:os';
import { resultKey } from '../runner/trajectory/result-record.js';
import { QUEUE_PREFIX, RUNS_KEY, capabilityQueueName, rolloutJobId, runKeys } from './queue-keys.js';
import { assertRedisAnswers, openRedis, quiet, redactedRedisUrl } from './redis-connection.js';
import { ResultStore, type StoredResult } from './result-store.js';
import { erroredRecord } from '../runner/run/errored-record.js';
import { clearRunCancelled } from './run-cancellation.js';
import { type RolloutJob, jobCapability } from './rollout-job.js';
import { listWorkers, workerLost } from './worker-registry.js';
import { HEARTBEAT_MS } from './rollout-worker.js';

export interface QueuedRunOptions {
  redisUrl: URL;
  runId: string;
  /** The rollouts still to do, in the order to enqueue them (all of one environment and backend need). */
  jobs: readonly RolloutJob[];
  /** Most rollouts enqueued and not yet received. */
  maxDepth: number;
  /** Attempts per rollout for transient infrastructure failures (default 3). */
  attempts?: number;
  abortSignal: AbortSignal;
  /**
   * Called once per rollout, in order of completion. Returns the keys now written durably (e.g. a whole group):
   * only those are dropped from Redis, so a producer that dies holding part of a group loses nothing.
   */
  onResult: (result: StoredResult) => readonly string[] | Promise<readonly string[]>;
  log: (line: string) => void;
}

export interface QueuedRunOutcome {
  received: number;
  /** Rollouts marked done whose record was lost before it reached results.jsonl; enqueued again. */
  requeued: number;
}

/** Most jobs added in one round trip. */
const ENQUEUE_BATCH = 200;
/** Run keys live on this long after their run ends, so a late retry still finds its key done. */
const FINISHED_RUN_TTL_S = 7 * 24 * 3600;

export async function runQueued(options: QueuedRunOptions): Promise<QueuedRunOutcome> {
  const redis = openRedis(options.redisUrl);
  // XREAD BLOCK holds its connection; everything else goes over the other.
  const reader = quiet(redis.duplicate());
  const store = new ResultStore(redis);
  const readStore = new ResultStore(reader);
  const queues = new Map<string, Queue>();
  try {
    await assertRedisAnswers(redis, options.redisUrl);
    const keys = runKeys(options.runId);
    const jobsByKey = new Map(options.jobs.map((job) => [resultKey(job.example.id, job.rollout_index), job]));
    const pending = new Set(jobsByKey.keys());
    const requeued = await store.forgetUnwritten(options.runId, [...pending]);
    if (requeued.length > 0) options.log(`queue: ${requeued.length} rollouts were stored but never written; running them again`);
    const queueName = options.jobs[0] ? capabilityQueueName(jobCapability(options.jobs[0])) : undefined;
    await redis.sadd(RUNS_KEY, options.runId);
    // A resumed run that was cancelled runs again.
    await clearRunCancelled(redis, options.runId);
    await redis.hset(keys.info, {
      queue: queueName ?? '',
      total: String(pending.size),
      producer: `${hostname()}:${process.pid}`,
      started_at: new Date().toISOString(),
      enqueued: '0',
    });
    if (queueName) await warnWithoutWorkers(redis, queueName, options);

    let received = 0;
    let wake: (() => void) | undefined;
    const signalProgress = () => {
      wake?.();
      wake = undefined;
    };
    options.abortSignal.addEventListener('abort', signalProgress, { once: true });

    const consume = async () => {
      let lastId = '0';
      while (pending.size > 0 && !options.abortSignal.aborted) {
        let batch: { results: StoredResult[]; lastId: string };
        try {
          batch = await readStore.read(options.runId, lastId, { count: 200, blockMs: 1_000 });
        } catch (error) {
          if (options.abortSignal.aborted) break;
          options.log(`queue: reading results failed (${(error as Error).message}); retrying`);
          await new Promise((resolve) => setTimeout(resolve, 500));
          continue;
        }
        lastId = batch.lastId;
        const written: string[] = [];
        for (const result of batch.results) {
          // Not pending: already in results.jsonl (a resume re-reading its stream), so its copy in Redis can go.
          if (!pending.has(result.key)) {
            written.push(result.key);
            continue;
          }
          pending.delete(result.key);
          received++;
          written.push(...(await options.onResult(readable(result, jobsByKey.get(result.key)!, options.log))));
        }
        await store.dropConsumed(options.runId, written);
        if (batch.results.length > 0) signalProgress();
      }
    };

    const queueFor = (name: string) => {
      let queue = queues.get(name);
      if (!queue) {
        queue = new Queue(name, { connection: redis, prefix: QUEUE_PREFIX });
        queue.on('error', (error) => options.log(`queue ${name}: ${error.message}`));
        queues.set(name, queue);
      }
      return queue;
    };
    // In batches of what the depth allows (at most ENQUEUE_BATCH): one round trip checks, one adds.
    const enqueue = async () => {
      let enqueued = 0;
      while (enqueued < options.jobs.length && !options.abortSignal.aborted) {
        while (enqueued - received >= options.maxDepth && !options.abortSignal.aborted) await new Promise<void>((resolve) => (wake = resolve));
        if (options.abortSignal.aborted) return;
        const room = Math.min(ENQUEUE_BATCH, options.maxDepth - (enqueued - received));
        const batch = options.jobs.slice(enqueued, enqueued + room);
        enqueued += batch.length;
        // Stored while the producer was away: their results are in the stream already.
        const stored = await redis.smismember(keys.done, ...batch.map((job) => resultKey(job.example.id, job.rollout_index)));
        const fresh = batch.filter((_, index) => stored[index] !== 1);
        const byQueue = new Map<string, RolloutJob[]>();
        for (const job of fresh) {
          const name = capabilityQueueName(jobCapability(job));
          byQueue.set(name, [...(byQueue.get(name) ?? []), job]);
        }
        for (const [name, members] of byQueue) {
          await queueFor(name).addBulk(
            members.map((job) => ({
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
        }
        await redis.hincrby(keys.info, 'enqueued', batch.length);
      }
    };

    // Once aborted, the loops end at their next step; if Redis hangs (down, cut off) the run still ends, after a grace.
    const work = Promise.all([enqueue(), consume()]);
    work.catch(() => undefined);
    await Promise.race([work, abortedThenGrace(options.abortSignal, ABORT_GRACE_MS)]);
    if (options.abortSignal.aborted) return { received, requeued: requeued.length };
    if (pending.size === 0) {
      await redis.srem(RUNS_KEY, options.runId);
      for (const key of Object.values(keys)) await redis.expire(key, FINISHED_RUN_TTL_S);
    }
    return { received, requeued: requeued.length };
  } finally {
    await settleWithin(Promise.all([...queues.values()].map((queue) => queue.close().catch(() => undefined))), ABORT_GRACE_MS);
    reader.disconnect();
    // Every command was awaited; quit() would wait for a Redis that never answered (and hang the process).
    redis.disconnect();
  }
}

/** How long an aborted run waits for its loops (and queue handles) to finish before it ends regardless. */
const ABORT_GRACE_MS = 2_000;

function abortedThenGrace(signal: AbortSignal, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const onAbort = () => setTimeout(resolve, graceMs).unref();
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
}

async function settleWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  await Promise.race([promise, new Promise((resolve) => setTimeout(resolve, ms).unref())]);
}

/** An unreadable stored result becomes the errored record of its job (logged with its code), never a stall. */
function readable(result: StoredResult, job: RolloutJob, log: (line: string) => void): StoredResult {
  if (result.unreadable === undefined) return result;
  log(`queue: QUEUE_ERR_INVALID_RESULT: ${result.unreadable}; recorded as errored`);
  return { ...result, record: erroredRecord(job, { code: 'QUEUE_ERR_INVALID_RESULT', message: result.unreadable }, 1) };
}

async function warnWithoutWorkers(redis: ReturnType<typeof openRedis>, queueName: string, options: QueuedRunOptions): Promise<void> {
  const workers = (await listWorkers(redis)).filter((worker) => worker.queues.includes(queueName) && !workerLost(worker, HEARTBEAT_MS));
  if (workers.length === 0)
    options.log(
      `queue: no live worker at ${redactedRedisUrl(options.redisUrl)} serves ${queueName} yet; rollouts wait until one joins (corral worker --redis ... --env ...)`,
    );
  else options.log(`queue: ${workers.length} workers serve ${queueName}: ${workers.map((worker) => worker.name).join(', ')}`);
}
