/**
 * Prometheus metrics of one `corral worker` (its --metrics-port): jobs by queue and state (read from BullMQ at
 * scrape time), rollouts finished by outcome and the rollouts running now (from the worker's own counters), and
 * the sandbox pool by state (read from the pool at scrape time), and the worker's own admission controller. A
 * registry per worker.
 */
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { QUEUE_PREFIX } from './queue-keys.js';
import type { RolloutWorker, RolloutWorkerStats } from './rollout-worker.js';

export interface PoolBucketView {
  backend: string;
  specHash: string;
  idle: number;
  leased: number;
  creating: number;
  resetting: number;
  waiting: number;
}

const JOB_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'failed'] as const;
const POOL_STATES = ['idle', 'leased', 'creating', 'resetting', 'waiting'] as const;
const ADMISSION_STATES = ['level', 'in_flight', 'waiting', 'max'] as const;
const OUTCOMES = ['completed', 'errored', 'duplicates', 'retried', 'failed'] as const satisfies readonly (keyof RolloutWorkerStats)[];

export function workerMetrics(worker: RolloutWorker, redis: Redis, poolStats: () => readonly PoolBucketView[]): { registry: Registry; close(): Promise<void> } {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });
  const queues = worker.queues.map((name) => new Queue(name, { connection: redis, prefix: QUEUE_PREFIX }));
  // A closing or restarting Redis surfaces as 'error' events; unheard, one would crash a draining worker.
  for (const queue of queues) queue.on('error', () => undefined);
  new Gauge({
    name: 'corral_queue_jobs',
    help: 'Jobs in each capability queue this worker serves, by state (the whole pool, not only this worker).',
    labelNames: ['queue', 'state'],
    registers,
    async collect() {
      this.reset();
      for (const queue of queues) {
        const counts = await queue.getJobCounts(...JOB_STATES).catch(() => ({}) as Record<string, number>);
        for (const state of JOB_STATES) this.set({ queue: queue.name, state }, counts[state] ?? 0);
      }
    },
  });
  // Counters that mirror the worker's own totals: inc by the difference at scrape time.
  const seen: Record<string, number> = {};
  new Counter({
    name: 'corral_worker_rollouts_total',
    help: 'Rollouts this worker finished, by outcome: completed, errored (an errored record stored), duplicates (already stored), retried, failed.',
    labelNames: ['outcome'],
    registers,
    collect() {
      for (const outcome of OUTCOMES) {
        const delta = worker.stats[outcome] - (seen[outcome] ?? 0);
        if (delta > 0) this.inc({ outcome }, delta);
        seen[outcome] = worker.stats[outcome];
      }
    },
  });
  new Gauge({
    name: 'corral_worker_rollouts_running',
    help: 'Rollouts this worker is running now.',
    registers,
    collect() {
      this.set(worker.stats.running);
    },
  });
  new Gauge({
    name: 'corral_worker_admission_rollouts',
    help: "This worker's admission control: the level (rollouts allowed at once; -c auto moves it), in_flight, waiting at the gate, and max (the ceiling).",
    labelNames: ['state'],
    registers,
    collect() {
      const snapshot = worker.admission.snapshot();
      for (const state of ADMISSION_STATES) this.set({ state }, snapshot[state]);
    },
  });
  new Gauge({
    name: 'corral_pool_sandboxes',
    help: "Sandboxes in this worker's pools by backend, spec and state (waiting counts acquire calls queued for one).",
    labelNames: ['backend', 'spec_hash', 'state'],
    registers,
    collect() {
      this.reset();
      for (const bucket of poolStats())
        for (const state of POOL_STATES) this.set({ backend: bucket.backend, spec_hash: bucket.specHash, state }, bucket[state]);
    },
  });
  return { registry, close: async () => void (await Promise.all(queues.map((queue) => queue.close().catch(() => undefined)))) };
}
