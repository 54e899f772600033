/**
 * The queued executor under the run driver, against a real redis-server with no worker: results workers stored
 * while no producer was reading are collected, a result is dropped from Redis only once its whole group is written
 * (a producer stopped holding half a group loses nothing), and a cancelled run's waiting jobs leave the queue.
 */
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_PREFIX, capabilityQueueName, runKeys } from '../../../src/queue/queue-keys.js';
import { ResultStore } from '../../../src/queue/result-store.js';
import type { RolloutJobTemplate } from '../../../src/queue/queued-executor.js';
import type { ResultRecord } from '../../../src/runner/trajectory/result-record.js';
import { type TestRedisServer, redisServerAvailable, startRedisServer } from '../../helpers/redis-server.js';
import { runOnQueue } from './queued-run.js';

const available = redisServerAvailable();
const ENVIRONMENT = 'half-group-env';

const template: RolloutJobTemplate = {
  environment: { name: ENVIRONMENT, source: ENVIRONMENT, args: {}, corpus: null, max_turns: null },
  agent: { name: 'scripted', model: null, base_url: null, sampling_args: {}, model_timeout_s: 1, model_retries: 0, api_key: 'worker', endpoint_guard: null },
  seed: null,
  needs: { backend: 'any' },
};

const record = (exampleId: string, rolloutIndex: number, reward: number): ResultRecord =>
  ({ example_id: exampleId, rollout_index: rolloutIndex, reward, error: null, prompt: [], completion: [], metrics: {} }) as unknown as ResultRecord;

describe.skipIf(!available)('the queued executor', () => {
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

  it('keeps half a group in Redis when the producer stops, and a resume collects both halves once', async () => {
    const runId = 'halfgroup';
    const store = new ResultStore(redis);
    // A worker stored a#0 while no producer was reading; a#1 waits in the queue (no worker runs it yet).
    await store.store(runId, record('a', 0, 1), 'w1');
    const controller = new AbortController();
    const queue = new Queue(capabilityQueueName({ environment: ENVIRONMENT, backend: 'any' }), { connection: redis, prefix: QUEUE_PREFIX });
    const first = runOnQueue({
      redisUrl: server.url(),
      runId,
      job: template,
      examples: [{ id: 'a', prompt: 'a' }],
      rolloutsPerExample: 2,
      abortSignal: controller.signal,
    });
    for (let attempt = 0; attempt < 100 && (await queue.getWaitingCount()) < 1; attempt++) await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    const stopped = await first;
    expect(stopped.records).toEqual([]);
    // a#0 was received but its group never written: it is still in Redis.
    expect(await redis.hexists(runKeys(runId).records, 'a#0')).toBe(1);

    // The worker finishes a#1 meanwhile; the resumed producer (same run id) gets both from the stream.
    await store.store(runId, record('a', 1, 0), 'w2');
    const resumed = await runOnQueue({
      redisUrl: server.url(),
      runId,
      job: template,
      examples: [{ id: 'a', prompt: 'a' }],
      rolloutsPerExample: 2,
      abortSignal: AbortSignal.timeout(20_000),
    });
    expect(resumed.records.map((each) => [each.rollout_index, each.group])).toEqual([
      [0, { mean: 0.5, std: 0.5, size: 2, advantage: 0.5 }],
      [1, { mean: 0.5, std: 0.5, size: 2, advantage: -0.5 }],
    ]);
    expect(resumed.outcome.progress.done).toBe(2);
    // Written whole: dropped from Redis; the done set keeps the keys, so a late retry stays a no-op.
    expect(await redis.hlen(runKeys(runId).records)).toBe(0);
    expect(await redis.scard(runKeys(runId).done)).toBe(2);
    await queue.close();
  });
});
