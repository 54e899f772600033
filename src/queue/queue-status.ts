/**
 * What `corral queue status` shows: the workers (name, capabilities, last heartbeat, running, lost or not), each
 * capability queue's jobs by state, each active run's depth (enqueued, stored, running, waiting), rates (results
 * stored per second, measured over a short window) and failures (pool-wide counters and failed jobs).
 */
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { QUEUE_PREFIX, RUNS_KEY, STATS_KEY, runKeys } from './queue-keys.js';
import { HEARTBEAT_MS } from './rollout-worker.js';
import { type WorkerHeartbeat, listWorkers, workerLost } from './worker-registry.js';

export interface QueueStatus {
  at: string;
  workers: (WorkerHeartbeat & { lost: boolean; heartbeat_age_ms: number })[];
  queues: { name: string; waiting: number; active: number; delayed: number; failed: number; workers: string[] }[];
  /** depth = enqueued - stored, of which `running` are active on a worker and the rest wait (or retry after a lost lease). */
  runs: {
    run_id: string;
    queue: string;
    total: number;
    enqueued: number;
    stored: number;
    depth: number;
    running: number;
    waiting: number;
    producer: string;
    started_at: string;
  }[];
  rates: { window_s: number; stored_per_s: number };
  totals: { completed: number; errored: number; retried: number; failed: number };
  failures: { queue: string; job_id: string; reason: string }[];
}

export async function readQueueStatus(redis: Redis, options: { rateWindowMs?: number } = {}): Promise<QueueStatus> {
  const now = Date.now();
  const workers = (await listWorkers(redis)).map((worker) => ({
    ...worker,
    lost: workerLost(worker, HEARTBEAT_MS, now),
    heartbeat_age_ms: now - Date.parse(worker.last_heartbeat),
  }));
  const before = await totals(redis);
  const windowMs = options.rateWindowMs ?? 1_000;
  if (windowMs > 0) await new Promise((resolve) => setTimeout(resolve, windowMs));
  const after = await totals(redis);
  const queueNames = new Set(workers.flatMap((worker) => worker.queues));
  const runIds = await redis.smembers(RUNS_KEY);
  const runs = await Promise.all(
    runIds.map(async (runId) => {
      const keys = runKeys(runId);
      const [info, stored] = await Promise.all([redis.hgetall(keys.info), redis.scard(keys.done)]);
      if (info['queue']) queueNames.add(info['queue']);
      const enqueued = Number(info['enqueued'] ?? 0);
      return {
        run_id: runId,
        queue: info['queue'] ?? '',
        total: Number(info['total'] ?? 0),
        enqueued,
        stored,
        depth: Math.max(0, enqueued - stored),
        running: 0,
        waiting: 0,
        producer: info['producer'] ?? '',
        started_at: info['started_at'] ?? '',
      };
    }),
  );
  const queues: QueueStatus['queues'] = [];
  const failures: QueueStatus['failures'] = [];
  for (const name of [...queueNames].sort()) {
    const queue = new Queue(name, { connection: redis, prefix: QUEUE_PREFIX });
    queue.on('error', () => undefined);
    try {
      const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized');
      queues.push({
        name,
        waiting: (counts['waiting'] ?? 0) + (counts['prioritized'] ?? 0),
        active: counts['active'] ?? 0,
        delayed: counts['delayed'] ?? 0,
        failed: counts['failed'] ?? 0,
        workers: workers.filter((worker) => worker.queues.includes(name) && !worker.lost).map((worker) => worker.name),
      });
      for (const job of await queue.getFailed(0, 9)) failures.push({ queue: name, job_id: String(job.id), reason: job.failedReason ?? '' });
      // Active jobs are at most the pool's total concurrency: cheap to read, and they say which run is running.
      for (const job of await queue.getActive(0, 9_999)) {
        const run = runs.find((candidate) => candidate.run_id === (job.data as { run_id?: unknown } | undefined)?.run_id);
        if (run) run.running++;
      }
    } finally {
      await queue.close();
    }
  }
  for (const run of runs) run.waiting = Math.max(0, run.depth - run.running);
  return {
    at: new Date(now).toISOString(),
    workers,
    queues,
    runs: runs.sort((a, b) => a.started_at.localeCompare(b.started_at)),
    rates: { window_s: windowMs / 1000, stored_per_s: windowMs > 0 ? Math.round(((after.completed - before.completed) * 1000 * 100) / windowMs) / 100 : 0 },
    totals: after,
    failures,
  };
}

async function totals(redis: Redis): Promise<QueueStatus['totals']> {
  const stats = await redis.hgetall(STATS_KEY);
  return {
    completed: Number(stats['completed'] ?? 0),
    errored: Number(stats['errored'] ?? 0),
    retried: Number(stats['retried'] ?? 0),
    failed: Number(stats['failed'] ?? 0),
  };
}

export function formatQueueStatus(status: QueueStatus): string {
  const lines = [`workers (${status.workers.length}):`];
  for (const worker of status.workers)
    lines.push(
      `  ${worker.name}  ${worker.lost ? 'LOST' : worker.state}  ${worker.running}/${worker.concurrency} running  ${worker.completed} done  heartbeat ${Math.round(worker.heartbeat_age_ms / 100) / 10} s ago  backends ${worker.capabilities.backends.join(',')}  envs ${worker.capabilities.environments.join(',')}  (${worker.host}:${worker.pid})`,
    );
  lines.push(`queues (${status.queues.length}):`);
  for (const queue of status.queues)
    lines.push(
      `  ${queue.name}  waiting ${queue.waiting}  active ${queue.active}  delayed ${queue.delayed}  failed ${queue.failed}  workers ${queue.workers.join(',') || 'NONE'}`,
    );
  lines.push(`runs (${status.runs.length}):`);
  for (const run of status.runs)
    lines.push(
      `  ${run.run_id}  ${run.stored}/${run.total} stored  depth ${run.depth} (${run.running} running, ${run.waiting} waiting)  ${run.queue}  producer ${run.producer}`,
    );
  lines.push(`rate: ${status.rates.stored_per_s} rollouts/s (over ${status.rates.window_s} s)`);
  lines.push(`totals: ${status.totals.completed} stored, ${status.totals.errored} errored, ${status.totals.retried} retried, ${status.totals.failed} failed`);
  for (const failure of status.failures) lines.push(`  failed ${failure.job_id} (${failure.queue}): ${failure.reason}`);
  return lines.join('\n');
}
