/** The worker's job protocol against a real redis-server and real BullMQ queues, with an in-process job runner. */
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_PREFIX, capabilityQueueName } from '../../../src/queue/queue-keys.js';
import { ResultStore } from '../../../src/queue/result-store.js';
import { ROLLOUT_JOB_VERSION, type RolloutJob } from '../../../src/queue/rollout-job.js';
import { RolloutWorker } from '../../../src/queue/rollout-worker.js';
import type { ResultRecord } from '../../../src/runner/trajectory/result-record.js';
import { type TestRedisServer, redisServerAvailable, startRedisServer } from '../../helpers/redis-server.js';

const available = redisServerAvailable();
const QUEUE = capabilityQueueName({ environment: 'unit-env', backend: 'any' });

const job = (runId: string, exampleId: string): RolloutJob => ({
  version: ROLLOUT_JOB_VERSION,
  run_id: runId,
  example: { id: exampleId, prompt: 'hi', answer: 'hi' },
  rollout_index: 0,
  environment: { name: 'unit-env', source: 'unit-env', args: {}, corpus: null, max_turns: null },
  agent: { name: 'scripted', model: null, base_url: null, sampling_args: {}, model_timeout_s: 1, model_retries: 0, api_key: 'worker', endpoint_guard: null },
  seed: null,
  needs: { backend: 'any' },
});

async function resultsOf(store: ResultStore, runId: string, count: number) {
  for (let attempt = 0; attempt < 200; attempt++) {
    const { results } = await store.read(runId, '0', { count: 100, blockMs: 50 });
    if (results.length >= count) return results;
  }
  throw new Error(`fewer than ${count} results for ${runId}`);
}

describe.skipIf(!available)('RolloutWorker', () => {
  let server: TestRedisServer;
  let redis: Redis;
  let queue: Queue;
  let worker: RolloutWorker;
  const ran: string[] = [];

  beforeAll(async () => {
    server = await startRedisServer();
    redis = new Redis(server.url(), { maxRetriesPerRequest: null });
    queue = new Queue(QUEUE, { connection: redis, prefix: QUEUE_PREFIX });
    worker = await RolloutWorker.start({
      redisUrl: new URL(server.url()),
      name: 'unit-worker',
      backend: 'process',
      concurrency: 2,
      leaseMs: 2_000,
      capabilities: { backends: ['process'], environments: ['unit-env'], agents: [], images: [] },
      log: () => undefined,
      jobRunner: {
        async run(payload) {
          ran.push(payload.example.id);
          return { example_id: payload.example.id, rollout_index: payload.rollout_index, reward: 1, error: null, attempts: 1 } as unknown as ResultRecord;
        },
      },
    });
  });
  afterAll(async () => {
    await worker?.drain();
    await queue?.close();
    redis?.disconnect();
    await server?.close();
  });

  it('stores the record with the worker name, and a second job for the same key never runs', async () => {
    await queue.add('rollout', job('runa', 'e1'), { jobId: 'first', attempts: 1 });
    const [first] = await resultsOf(new ResultStore(redis), 'runa', 1);
    expect(first!.record['extra']).toEqual({ worker: 'unit-worker' });
    expect(first!.worker).toBe('unit-worker');
    await queue.add('rollout', job('runa', 'e1'), { jobId: 'second', attempts: 1 });
    for (let attempt = 0; attempt < 100 && worker.stats.duplicates === 0; attempt++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(worker.stats.duplicates).toBe(1);
    expect(ran.filter((id) => id === 'e1')).toHaveLength(1);
  });

  it('a job of another version becomes an errored record after its last attempt, so the producer is never left waiting', async () => {
    await queue.add('rollout', { ...job('runb', 'e2'), version: 99 }, { jobId: 'invalid', attempts: 1 });
    const [result] = await resultsOf(new ResultStore(redis), 'runb', 1);
    expect(result!.record.error).toMatchObject({ code: 'QUEUE_ERR_INVALID_JOB', boundary: 'runner' });
    expect(result!.record.reward).toBeNull();
    expect(ran).not.toContain('e2');
  });
});
