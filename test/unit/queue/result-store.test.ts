/** The idempotent result store against a real redis-server (its own port and folder). */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runKeys } from '../../../src/queue/queue-keys.js';
import { ResultStore } from '../../../src/queue/result-store.js';
import type { ResultRecord } from '../../../src/runner/trajectory/result-record.js';
import { type TestRedisServer, redisServerAvailable, startRedisServer } from '../../helpers/redis-server.js';

const available = redisServerAvailable();

const record = (exampleId: string, rolloutIndex: number, reward = 1): ResultRecord =>
  ({ example_id: exampleId, rollout_index: rolloutIndex, reward, error: null }) as unknown as ResultRecord;

describe.skipIf(!available)('ResultStore', () => {
  let server: TestRedisServer;
  let redis: Redis;
  let store: ResultStore;

  beforeAll(async () => {
    server = await startRedisServer();
    redis = new Redis(server.url(), { maxRetriesPerRequest: null });
    store = new ResultStore(redis);
  });
  afterAll(async () => {
    redis?.disconnect();
    await server?.close();
  });

  it('stores a rollout once: a retry of the same key is refused and never reaches the stream', async () => {
    expect(await store.store('dedupe', record('a', 0, 1), 'w1')).toBe(true);
    expect(await store.store('dedupe', record('a', 0, 0), 'w2')).toBe(false);
    expect(await store.store('dedupe', record('a', 1), 'w2')).toBe(true);
    const { results } = await store.read('dedupe', '0', { count: 10, blockMs: 10 });
    expect(results.map((result) => [result.key, result.worker, result.record.reward])).toEqual([
      ['a#0', 'w1', 1],
      ['a#1', 'w2', 1],
    ]);
    expect(await store.isStored('dedupe', 'a#0')).toBe(true);
    expect(await store.isStored('dedupe', 'b#0')).toBe(false);
  });

  it('reads on from a position, and skips entries whose record was consumed', async () => {
    await store.store('reading', record('x', 0), 'w1');
    const first = await store.read('reading', '0', { count: 10, blockMs: 10 });
    await store.store('reading', record('y', 0), 'w1');
    const next = await store.read('reading', first.lastId, { count: 10, blockMs: 10 });
    expect(next.results.map((result) => result.key)).toEqual(['y#0']);
    await store.dropConsumed('reading', ['x#0']);
    const again = await store.read('reading', '0', { count: 10, blockMs: 10 });
    expect(again.results.map((result) => result.key)).toEqual(['y#0']);
    // Dropping the record keeps the key done: a late retry is still refused.
    expect(await store.store('reading', record('x', 0), 'w2')).toBe(false);
  });

  it('forgets keys marked done whose record was dropped but never written, so they run again', async () => {
    await store.store('lost', record('k', 0), 'w1');
    await store.store('lost', record('k', 1), 'w1');
    await redis.hdel(runKeys('lost').records, 'k#0');
    expect(await store.forgetUnwritten('lost', ['k#0', 'k#1', 'k#2'])).toEqual(['k#0']);
    expect(await store.isStored('lost', 'k#0')).toBe(false);
    expect(await store.isStored('lost', 'k#1')).toBe(true);
    expect(await store.store('lost', record('k', 0), 'w2')).toBe(true);
  });

  it('keeps what it stored across a redis-server restart (appendonly, fsync always)', async () => {
    await store.store('durable', record('d', 0), 'w1');
    await server.restart();
    expect(await store.isStored('durable', 'd#0')).toBe(true);
    const { results } = await store.read('durable', '0', { count: 10, blockMs: 10 });
    expect(results.map((result) => result.key)).toEqual(['d#0']);
  });
});
