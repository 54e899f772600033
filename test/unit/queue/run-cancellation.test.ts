/**
 * A cancelled queued run: its waiting jobs are removed, a worker that still gets one of its jobs (a late enqueue, a
 * retry) skips it without running it, and a resumed run (the queued executor with the same run id) clears the flag so its
 * rollouts run again. A real redis-server and real BullMQ queues, with an in-process job runner.
 */
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_PREFIX, capabilityQueueName, rolloutJobId } from '../../../src/queue/queue-keys.js';
import { ROLLOUT_JOB_VERSION, type RolloutJob } from '../../../src/queue/rollout-job.js';
import { RolloutWorker } from '../../../src/queue/rollout-worker.js';
import { cancelQueuedRun, isRunCancelled } from '../../../src/queue/run-cancellation.js';
import type { ResultRecord } from '../../../src/runner/trajectory/result-record.js';
import { runOnQueue, templateOf } from './queued-run.js';
import { type TestRedisServer, redisServerAvailable, startRedisServer } from '../../helpers/redis-server.js';

const available = redisServerAvailable();
const ENVIRONMENT = 'cancel-env';
const QUEUE = capabilityQueueName({ environment: ENVIRONMENT, backend: 'any' });

const job = (runId: string, exampleId: string): RolloutJob => ({
  version: ROLLOUT_JOB_VERSION,
  run_id: runId,
  example: { id: exampleId, prompt: 'hi', answer: 'hi' },
  rollout_index: 0,
  environment: { name: ENVIRONMENT, source: ENVIRONMENT, args: {}, corpus: null, max_turns: null },
  agent: { name: 'scripted', model: null, base_url: null, sampling_args: {}, model_timeout_s: 1, model_retries: 0, api_key: 'worker', endpoint_guard: null },
  seed: null,
  needs: { backend: 'any' },
});

describe.skipIf(!available)('a cancelled queued run', () => {
  let server: TestRedisServer;
  let redis: Redis;

  beforeAll(async () => {
    server = await startRedisServer();
    redis = new Redis(server.url(), { maxRetriesPerRequest: null });
  });
  afterAll(async () => {
    redis?.disconnect();
    await server?.close();
  });

  it('loses its waiting jobs, a late job is skipped by the worker, and a resume runs it again', async () => {
    const runId = 'cancelme';
    const jobs = [job(runId, 'a'), job(runId, 'b')];
    // A producer that enqueues, then is cancelled before any worker exists.
    const controller = new AbortController();
    const logged: string[] = [];
    const producer = runOnQueue({
      redisUrl: server.url(),
      runId,
      job: templateOf(jobs[0]!),
      examples: jobs.map((each) => each.example),
      abortSignal: controller.signal,
      log: (line) => logged.push(line),
    });
    const queue = new Queue(QUEUE, { connection: redis, prefix: QUEUE_PREFIX });
    for (let attempt = 0; attempt < 100 && (await queue.getWaitingCount()) < 2; attempt++) await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    // The cancelled producer removes its own waiting jobs (the executor's end), and records nothing.
    const cancelled = await producer;
    expect(cancelled.outcome.cancelled).toBe(true);
    expect(cancelled.records).toEqual([]);
    expect(logged).toContain('cancelled: 2 waiting rollouts removed from the queue');
    expect(await queue.getWaitingCount()).toBe(0);
    expect(await cancelQueuedRun(redis, runId)).toMatchObject({ run_id: runId, queue: QUEUE, removed: 0 });
    expect(await isRunCancelled(redis, runId)).toBe(true);

    // A job of the cancelled run that still reaches the queue (enqueued in the same instant) never runs.
    await queue.add('rollout', job(runId, 'late'), { jobId: rolloutJobId(runId, 'late', 0) });
    const ran: string[] = [];
    const worker = await RolloutWorker.start({
      redisUrl: new URL(server.url()),
      name: 'cancel-worker',
      backend: 'process',
      concurrency: 2,
      leaseMs: 2_000,
      capabilities: { backends: ['process'], environments: [ENVIRONMENT], agents: [], images: [] },
      log: () => undefined,
      jobRunner: {
        async run(payload) {
          ran.push(payload.example.id);
          return { example_id: payload.example.id, rollout_index: payload.rollout_index, reward: 1, error: null } as unknown as ResultRecord;
        },
      },
    });
    try {
      for (let attempt = 0; attempt < 100 && worker.stats.cancelled === 0; attempt++) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(worker.stats.cancelled).toBe(1);
      expect(ran).toEqual([]);

      // --resume of the run: the same run id, the flag cleared, both rollouts run and come back.
      const resumed = await runOnQueue({
        redisUrl: server.url(),
        runId,
        job: templateOf(jobs[0]!),
        examples: jobs.map((each) => each.example),
        abortSignal: AbortSignal.timeout(20_000),
      });
      expect(resumed.records.map((each) => `${each.example_id}#${each.rollout_index}`).sort()).toEqual(['a#0', 'b#0']);
      expect(ran.sort()).toEqual(['a', 'b']);
      expect(await isRunCancelled(redis, runId)).toBe(false);
    } finally {
      await worker.drain();
      await queue.close();
    }
  });
});
