/**
 * Corrupt data in the queue's Redis never stalls a run: an unreadable stored result reaches the producer as the
 * errored record of its rollout (QUEUE_ERR_INVALID_RESULT) and the other records keep coming; a job hash whose data
 * is not JSON is failed by the worker, with an errored record stored for the producer, instead of cycling through
 * `active` for ever. A real redis-server (its own port and folder) and real BullMQ queues.
 */
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_PREFIX, capabilityQueueName, rolloutJobId, runKeys } from '../../../src/queue/queue-keys.js';
import { ResultStore } from '../../../src/queue/result-store.js';
import { ROLLOUT_JOB_VERSION, type RolloutJob } from '../../../src/queue/rollout-job.js';
import { RolloutWorker } from '../../../src/queue/rollout-worker.js';
import type { StoredResult } from '../../../src/queue/result-store.js';
import { runOnQueue, templateOf } from './queued-run.js';
import type { ResultRecord } from '../../../src/runner/trajectory/result-record.js';
import { type TestRedisServer, redisServerAvailable, startRedisServer } from '../../helpers/redis-server.js';

const available = redisServerAvailable();

const job = (runId: string, exampleId: string, environment = 'corrupt-env'): RolloutJob => ({
  version: ROLLOUT_JOB_VERSION,
  run_id: runId,
  example: { id: exampleId, prompt: `say ${exampleId}`, answer: exampleId },
  rollout_index: 0,
  environment: { name: environment, source: environment, args: {}, corpus: null, max_turns: null },
  agent: { name: 'scripted', model: null, base_url: null, sampling_args: {}, model_timeout_s: 1, model_retries: 0, api_key: 'worker', endpoint_guard: null },
  seed: null,
  needs: { backend: 'any' },
});

const record = (exampleId: string): ResultRecord =>
  ({ example_id: exampleId, rollout_index: 0, reward: 1, error: null, prompt: [], completion: [] }) as unknown as ResultRecord;

describe.skipIf(!available)('corrupt data in the queue', () => {
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

  it('an unreadable stored result becomes the errored record of its rollout and the run receives all twelve', async () => {
    const store = new ResultStore(redis);
    const jobs = Array.from({ length: 12 }, (_, index) => job('badresult', `e${index}`));
    for (const each of jobs) await store.store('badresult', record(each.example.id), 'w1');
    // One body that is not JSON, one that is the record of another key.
    await redis.hset(runKeys('badresult').records, 'e3#0', '{"example_id": "e3", "rollout');
    await redis.hset(runKeys('badresult').records, 'e7#0', JSON.stringify(record('e8')));
    const logged: string[] = [];
    const { outcome, records } = await runOnQueue({
      redisUrl: server.url(),
      runId: 'badresult',
      job: templateOf(jobs[0]!),
      examples: jobs.map((each) => each.example),
      abortSignal: AbortSignal.timeout(20_000),
      log: (line) => logged.push(line),
    });
    expect(outcome.progress.done).toBe(12);
    const byKey = new Map(records.map((each) => [`${each.example_id}#${each.rollout_index}`, each]));
    expect(byKey.get('e3#0')).toMatchObject({ example_id: 'e3', rollout_index: 0, reward: null, error: { code: 'QUEUE_ERR_INVALID_RESULT' } });
    expect(byKey.get('e3#0')!.prompt).toEqual([{ role: 'user', content: 'say e3' }]);
    expect(byKey.get('e7#0')).toMatchObject({ example_id: 'e7', reward: null, error: { code: 'QUEUE_ERR_INVALID_RESULT' } });
    expect(byKey.get('e5#0')).toMatchObject({ example_id: 'e5', reward: 1, error: null });
    expect(logged.filter((line) => line.includes('QUEUE_ERR_INVALID_RESULT'))).toHaveLength(2);
  });

  it('a job hash whose data is not JSON is failed, and its rollout gets an errored record instead of staying active', async () => {
    const environment = 'corrupt-job-env';
    const name = capabilityQueueName({ environment, backend: 'any' });
    const queue = new Queue(name, { connection: redis, prefix: QUEUE_PREFIX });
    const corrupt = job('badjob', 'c1', environment);
    const healthy = job('badjob', 'c2', environment);
    const corruptId = rolloutJobId('badjob', 'c1', 0);
    await queue.add('rollout', corrupt, { jobId: corruptId, attempts: 3 });
    await queue.add('rollout', healthy, { jobId: rolloutJobId('badjob', 'c2', 0), attempts: 3 });
    await redis.hset(`${QUEUE_PREFIX}:${name}:${corruptId}`, 'data', '{"version":1,"run_id":"badjob","exam');
    const ran: string[] = [];
    const worker = await RolloutWorker.start({
      redisUrl: new URL(server.url()),
      name: 'corrupt-worker',
      backend: 'process',
      concurrency: 2,
      leaseMs: 1_000,
      capabilities: { backends: ['process'], environments: [environment], agents: [], images: [] },
      log: () => undefined,
      jobRunner: {
        async run(payload) {
          ran.push(payload.example.id);
          return record(payload.example.id);
        },
      },
    });
    try {
      const store = new ResultStore(redis);
      const results: StoredResult[] = [];
      let lastId = '0';
      for (let attempt = 0; attempt < 100 && results.length < 2; attempt++) {
        const batch = await store.read('badjob', lastId, { count: 10, blockMs: 100 });
        results.push(...batch.results);
        lastId = batch.lastId;
      }
      const byKey = new Map(results.map((result) => [result.key, result.record]));
      expect(byKey.get('c1#0')).toMatchObject({ example_id: 'c1', rollout_index: 0, reward: null, error: { code: 'QUEUE_ERR_INVALID_JOB' } });
      expect(byKey.get('c2#0')).toMatchObject({ example_id: 'c2', reward: 1 });
      expect(ran).toEqual(['c2']);
      let state = '';
      for (let attempt = 0; attempt < 100 && state !== 'failed'; attempt++) {
        state = await queue.getJobState(corruptId);
        if (state !== 'failed') await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(state).toBe('failed');
    } finally {
      await worker.drain();
      await queue.close();
    }
  });
});
