/**
 * Each `corral worker` paces itself with its own admission controller (the run driver's class): the load signals its
 * rollouts report (here from an in-process job runner, as the model client reports them) move only its level, BullMQ
 * fetches jobs up to that level, and the level shows in the worker's /metrics and, on a cut, in its log. A job that
 * waits at the gate is checked against its run's cancellation again before it runs. Real redis-server and BullMQ queues.
 */
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_PREFIX, capabilityQueueName } from '../../../src/queue/queue-keys.js';
import { ResultStore } from '../../../src/queue/result-store.js';
import { cancelQueuedRun } from '../../../src/queue/run-cancellation.js';
import { ROLLOUT_JOB_VERSION, type RolloutJob } from '../../../src/queue/rollout-job.js';
import { type JobRunner, RolloutWorker } from '../../../src/queue/rollout-worker.js';
import { workerMetrics } from '../../../src/queue/worker-metrics.js';
import { AdmissionController } from '../../../src/runner/run/admission/admission-controller.js';
import { reportLoad } from '../../../src/runner/run/admission/load-signals.js';
import type { ResultRecord } from '../../../src/runner/trajectory/result-record.js';
import { type TestRedisServer, redisServerAvailable, startRedisServer } from '../../helpers/redis-server.js';

const available = redisServerAvailable();
const JOBS = 24;

const job = (environment: string, exampleId: string): RolloutJob => ({
  version: ROLLOUT_JOB_VERSION,
  run_id: `run-${environment}`,
  example: { id: exampleId, prompt: 'hi', answer: 'hi' },
  rollout_index: 0,
  environment: { name: environment, source: environment, args: {}, corpus: null, max_turns: null },
  agent: { name: 'scripted', model: null, base_url: null, sampling_args: {}, model_timeout_s: 1, model_retries: 0, api_key: 'worker', endpoint_guard: null },
  seed: null,
  needs: { backend: 'any' },
});

/** A rollout of 10 ms whose one model call the endpoint answered `outcome`, reported as the model client reports it. */
const modelRollouts = (outcome: 'ok' | 'overloaded'): JobRunner => ({
  async run(payload) {
    const startedAtMs = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 10));
    // The endpoint's latency, as the model client measures it: steady (a busy test machine's timer delays are not load).
    reportLoad({ kind: 'model-call', outcome, startedAtMs, latencyMs: 10 });
    return { example_id: payload.example.id, rollout_index: 0, reward: outcome === 'ok' ? 1 : null, error: null, attempts: 1 } as unknown as ResultRecord;
  },
});

/** Polls a condition the worker reaches by itself; fails after 10 s instead of hanging the suite. */
async function until(condition: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 1_000 && !condition(); attempt++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!condition()) throw new Error(`never true: ${condition.toString()}`);
}

describe.skipIf(!available)('each worker its own admission controller', () => {
  let server: TestRedisServer;
  let redis: Redis;
  const workers: RolloutWorker[] = [];
  const logs: Record<string, string[]> = { healthy: [], overloaded: [] };

  async function startWorker(environment: 'healthy' | 'overloaded'): Promise<RolloutWorker> {
    const worker = await RolloutWorker.start({
      redisUrl: new URL(server.url()),
      name: `${environment}-worker`,
      backend: 'process',
      concurrency: new AdmissionController({ mode: 'auto', maxConcurrency: 32 }),
      leaseMs: 5_000,
      capabilities: { backends: ['process'], environments: [environment], agents: [], images: [] },
      log: (line) => logs[environment]!.push(line),
      jobRunner: modelRollouts(environment === 'healthy' ? 'ok' : 'overloaded'),
    });
    workers.push(worker);
    return worker;
  }

  async function runJobs(environment: string): Promise<void> {
    const queue = new Queue(capabilityQueueName({ environment, backend: 'any' }), { connection: redis, prefix: QUEUE_PREFIX });
    await queue.addBulk(
      Array.from({ length: JOBS }, (_, index) => ({ name: 'rollout', data: job(environment, `e${index}`), opts: { jobId: `${environment}-${index}` } })),
    );
    const store = new ResultStore(redis);
    for (let results = 0; results < JOBS;) results = (await store.read(`run-${environment}`, '0', { count: JOBS, blockMs: 50 })).results.length;
    await queue.close();
  }

  beforeAll(async () => {
    server = await startRedisServer();
    redis = new Redis(server.url(), { maxRetriesPerRequest: null });
  });
  afterAll(async () => {
    for (const worker of workers) await worker.drain();
    redis?.disconnect();
    await server?.close();
  });

  it('a worker whose endpoint answers 429 cuts its own level, logs the cut and shows it in /metrics; a healthy one climbs', async () => {
    const [healthy, overloaded] = await Promise.all([startWorker('healthy'), startWorker('overloaded')]);
    expect(healthy.admission).not.toBe(overloaded.admission);
    await Promise.all([runJobs('healthy'), runJobs('overloaded')]);

    const cut = overloaded.admission.snapshot();
    expect(cut.cuts.overload).toBeGreaterThanOrEqual(1);
    expect(cut.level).toBeLessThan(4);
    expect(logs['overloaded']).toContain('admission: level 4 -> 2 (overload)');

    // BullMQ fetched beyond the starting level as the level grew: more than 4 of its rollouts ran at once.
    const climbed = healthy.admission.snapshot();
    expect(climbed.cuts).toEqual({});
    expect(climbed.level).toBeGreaterThan(4);
    expect(climbed.peak_in_flight).toBeGreaterThan(4);
    expect(logs['healthy']!.filter((line) => line.startsWith('admission:'))).toEqual([]);

    const metrics = workerMetrics(overloaded, redis, () => []);
    try {
      const text = await metrics.registry.metrics();
      expect(text).toContain(`corral_worker_admission_rollouts{state="level"} ${cut.level}`);
      expect(text).toContain('corral_worker_admission_rollouts{state="max"} 32');
    } finally {
      await metrics.close();
    }
  });

  it('a job that waited at the gate while its run was cancelled (a trainer deadline) never runs', async () => {
    // Level 1 (of at most 2) over two queues: BullMQ takes one job from each, so the second waits at the gate.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const ran: string[] = [];
    const worker = await RolloutWorker.start({
      redisUrl: new URL(server.url()),
      name: 'gate-worker',
      backend: 'process',
      concurrency: new AdmissionController({ mode: 'auto', maxConcurrency: 2, policy: { initialLevel: 1 } }),
      leaseMs: 5_000,
      capabilities: { backends: ['process'], environments: ['gate-a', 'gate-b'], agents: [], images: [] },
      log: () => undefined,
      jobRunner: {
        async run(payload) {
          ran.push(payload.environment.name);
          if (payload.environment.name === 'gate-a') await held;
          return { example_id: payload.example.id, rollout_index: 0, reward: 1, error: null, attempts: 1 } as unknown as ResultRecord;
        },
      },
    });
    workers.push(worker);
    const queues = ['gate-a', 'gate-b'].map(
      (environment) => new Queue(capabilityQueueName({ environment, backend: 'any' }), { connection: redis, prefix: QUEUE_PREFIX }),
    );
    try {
      await queues[0]!.add('rollout', job('gate-a', 'a0'), { jobId: 'gate-a-0' });
      await until(() => ran.includes('gate-a'));
      await queues[1]!.add('rollout', job('gate-b', 'b0'), { jobId: 'gate-b-0' });
      await until(() => worker.admission.snapshot().waiting === 1);
      await cancelQueuedRun(redis, 'run-gate-b', { mustExist: false });
      release();
      await until(() => worker.stats.cancelled === 1 || ran.length === 2);
      expect(ran).toEqual(['gate-a']);
      expect(worker.stats.cancelled).toBe(1);
    } finally {
      release();
      await Promise.all(queues.map((queue) => queue.close()));
    }
  });

  it('a job whose request deadline has passed is never started, whether or not its run was cancelled yet', async () => {
    const ran: string[] = [];
    const worker = await RolloutWorker.start({
      redisUrl: new URL(server.url()),
      name: 'deadline-worker',
      backend: 'process',
      concurrency: 2,
      leaseMs: 5_000,
      capabilities: { backends: ['process'], environments: ['deadline'], agents: [], images: [] },
      log: () => undefined,
      jobRunner: {
        async run(payload) {
          ran.push(payload.example.id);
          return { example_id: payload.example.id, rollout_index: 0, reward: 1, error: null, attempts: 1 } as unknown as ResultRecord;
        },
      },
    });
    workers.push(worker);
    const queue = new Queue(capabilityQueueName({ environment: 'deadline', backend: 'any' }), { connection: redis, prefix: QUEUE_PREFIX });
    try {
      await queue.add('rollout', { ...job('deadline', 'late'), deadline: new Date(Date.now() - 1_000).toISOString() }, { jobId: 'deadline-late' });
      await queue.add('rollout', { ...job('deadline', 'timely'), deadline: new Date(Date.now() + 600_000).toISOString() }, { jobId: 'deadline-timely' });
      await until(() => worker.stats.cancelled + ran.length === 2);
      expect(ran).toEqual(['timely']);
      expect(worker.stats.cancelled).toBe(1);
    } finally {
      await queue.close();
    }
  });
});
