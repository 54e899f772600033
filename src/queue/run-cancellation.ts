/**
 * Cancelling a queued run and purging the queue. A cancelled run is flagged in its info hash (`cancelled_at`) and
 * leaves the active-runs set; its jobs that no worker holds yet (waiting, delayed, prioritized) are removed, and a
 * worker that still takes one (enqueued in the same instant, or a retry) skips it. Rollouts already running finish
 * and are stored, so `--resume` collects them; a resumed run clears the flag. Purge does this for every run and
 * empties every capability queue's waiting, delayed and failed jobs. Neither touches a job a worker is running.
 */
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { CorralError } from '../core/errors.js';
import { QUEUE_PREFIX, RUNS_KEY, WORKERS_KEY, runKeys } from './queue-keys.js';

/** Job states that no worker holds: what a cancel removes. */
const UNCLAIMED = ['waiting', 'delayed', 'prioritized'] as const;
const PAGE = 500;
/** A cancelled run's keys live on this long, so --resume can still collect what workers stored. */
const CANCELLED_RUN_TTL_S = 7 * 24 * 3600;

export interface CancelOutcome {
  run_id: string;
  queue: string | null;
  /** Jobs removed before any worker took them. */
  removed: number;
}

export async function isRunCancelled(redis: Redis, runId: string): Promise<boolean> {
  return (await redis.hexists(runKeys(runId).info, 'cancelled_at')) === 1;
}

/** Un-flags a run (a --resume of a cancelled run). */
export async function clearRunCancelled(redis: Redis, runId: string): Promise<void> {
  await redis.hdel(runKeys(runId).info, 'cancelled_at');
}

/** Throws QUEUE_ERR_UNKNOWN_RUN when `runId` names no run this Redis knows (unless `mustExist` is false). */
export async function cancelQueuedRun(redis: Redis, runId: string, options: { mustExist?: boolean } = {}): Promise<CancelOutcome> {
  const keys = runKeys(runId);
  const info = await redis.hgetall(keys.info);
  if (Object.keys(info).length === 0 && options.mustExist !== false)
    throw new CorralError('QUEUE_ERR_UNKNOWN_RUN', `no queued run ${runId} in this Redis (corral queue status lists the runs)`);
  await redis.hset(keys.info, 'cancelled_at', new Date().toISOString());
  await redis.srem(RUNS_KEY, runId);
  for (const key of Object.values(keys)) await redis.expire(key, CANCELLED_RUN_TTL_S);
  const queueName = info['queue'] || null;
  const removed = queueName ? await removeUnclaimed(redis, queueName, (jobId) => jobId.startsWith(`r.${runId}.`)) : 0;
  return { run_id: runId, queue: queueName, removed };
}

export interface PurgeOutcome {
  queues: string[];
  runs: string[];
  /** Waiting, delayed and failed jobs removed. */
  removed: number;
}

/** Every run cancelled and every capability queue emptied of the jobs no worker holds (and of failed jobs). */
export async function purgeQueue(redis: Redis): Promise<PurgeOutcome> {
  const runs = await redis.smembers(RUNS_KEY);
  let removed = 0;
  for (const runId of runs) removed += (await cancelQueuedRun(redis, runId, { mustExist: false })).removed;
  const queues = await capabilityQueues(redis);
  for (const name of queues) {
    removed += await removeUnclaimed(redis, name, () => true);
    const queue = new Queue(name, { connection: redis, prefix: QUEUE_PREFIX });
    queue.on('error', () => undefined);
    try {
      removed += (await queue.clean(0, 0, 'failed')).length;
    } finally {
      await queue.close();
    }
  }
  return { queues, runs, removed };
}

/** What purge would touch, for the refusal without --yes. */
export async function purgePreview(redis: Redis): Promise<{ queues: string[]; runs: string[]; unclaimed: number }> {
  const [runs, queues] = await Promise.all([redis.smembers(RUNS_KEY), capabilityQueues(redis)]);
  let unclaimed = 0;
  for (const name of queues) {
    const queue = new Queue(name, { connection: redis, prefix: QUEUE_PREFIX });
    queue.on('error', () => undefined);
    try {
      const counts = await queue.getJobCounts(...UNCLAIMED, 'failed');
      unclaimed += Object.values(counts).reduce((sum, count) => sum + count, 0);
    } finally {
      await queue.close();
    }
  }
  return { queues, runs, unclaimed };
}

async function removeUnclaimed(redis: Redis, name: string, matches: (jobId: string) => boolean): Promise<number> {
  const queue = new Queue(name, { connection: redis, prefix: QUEUE_PREFIX });
  queue.on('error', () => undefined);
  let removed = 0;
  try {
    for (let start = 0; ;) {
      const jobs = await queue.getJobs([...UNCLAIMED], start, start + PAGE - 1, true);
      if (jobs.length === 0) break;
      let kept = 0;
      for (const job of jobs) {
        const id = String(job.id);
        // A job a worker took between the read and the remove is locked: it stays, and the worker skips or finishes it.
        if (matches(id) && (await queue.remove(id)) === 1) removed++;
        else kept++;
      }
      start += kept;
    }
  } finally {
    await queue.close();
  }
  return removed;
}

/** The capability queues this Redis holds: every BullMQ meta key under corral's prefix, and those workers serve. */
async function capabilityQueues(redis: Redis): Promise<string[]> {
  const names = new Set<string>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${QUEUE_PREFIX}:rollouts~*:meta`, 'COUNT', 500);
    cursor = next;
    for (const key of keys) names.add(key.slice(QUEUE_PREFIX.length + 1, -':meta'.length));
  } while (cursor !== '0');
  for (const heartbeat of Object.values(await redis.hgetall(WORKERS_KEY))) {
    try {
      for (const queue of (JSON.parse(heartbeat) as { queues?: unknown }).queues as string[]) if (typeof queue === 'string') names.add(queue);
    } catch {
      // A malformed heartbeat names no queue.
    }
  }
  return [...names].sort();
}
