/**
 * Results in Redis, keyed on (run id, example id, rollout index). A worker stores a record with one Lua script
 * (add the key to the run's done set; only if it was new: keep the record and append (key, worker) to the run's
 * stream), then acknowledges its job; a retried rollout whose key is already there is never written twice. The
 * producer pulls the stream at its own pace (so a slow consumer never makes workers buffer), writes records to
 * results.jsonl and then drops them from Redis (the done set keeps the keys, so a late retry stays a no-op).
 */
import type { Redis } from 'ioredis';
import type { ResultRecord } from '../runner/trajectory/result-record.js';
import { resultKey } from '../runner/trajectory/result-record.js';
import { erroredRecord } from '../runner/run/errored-record.js';
import { STATS_KEY, runKeys } from './queue-keys.js';

const STORE_SCRIPT = `
if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('XADD', KEYS[3], '*', 'key', ARGV[1], 'worker', ARGV[3])
redis.call('HINCRBY', KEYS[4], 'completed', 1)
if ARGV[4] == '1' then redis.call('HINCRBY', KEYS[4], 'errored', 1) end
return 1
`;

export interface StoredResult {
  key: string;
  worker: string;
  record: ResultRecord;
  /** The stream entry id, the producer's read position. */
  entryId: string;
  /**
   * Set when the stored body is not a readable record of this key (QUEUE_ERR_INVALID_RESULT): `record` is then an
   * errored stand-in, so one bad body never stops the run.
   */
  unreadable?: string;
}

export class ResultStore {
  constructor(private readonly redis: Redis) {}

  /** True when this call stored the record; false when the key was already stored (a retried rollout). */
  async store(runId: string, record: ResultRecord, worker: string): Promise<boolean> {
    const keys = runKeys(runId);
    const key = resultKey(record.example_id, record.rollout_index);
    const stored = await this.redis.eval(
      STORE_SCRIPT,
      4,
      keys.done,
      keys.records,
      keys.stream,
      STATS_KEY,
      key,
      JSON.stringify(record),
      worker,
      record.error ? '1' : '0',
    );
    return stored === 1;
  }

  async isStored(runId: string, key: string): Promise<boolean> {
    return (await this.redis.sismember(runKeys(runId).done, key)) === 1;
  }

  /**
   * Up to `count` results after `afterId` ('0' from the start), waiting at most `blockMs` for the first. An entry
   * whose record was already consumed (a restarted producer re-reading its stream) is skipped.
   */
  async read(runId: string, afterId: string, options: { count: number; blockMs: number }): Promise<{ results: StoredResult[]; lastId: string }> {
    const keys = runKeys(runId);
    const reply = (await this.redis.xread('COUNT', options.count, 'BLOCK', options.blockMs, 'STREAMS', keys.stream, afterId)) as
      [string, [string, string[]][]][] | null;
    const entries = reply?.[0]?.[1] ?? [];
    if (entries.length === 0) return { results: [], lastId: afterId };
    const fields = entries.map(([id, values]) => ({ id, ...pairs(values) }));
    const bodies = await this.redis.hmget(keys.records, ...fields.map((entry) => entry.key));
    const results: StoredResult[] = [];
    fields.forEach((entry, index) => {
      const body = bodies[index];
      if (body) results.push({ key: entry.key, worker: entry.worker, entryId: entry.id, ...parseRecord(body, entry.key) });
    });
    return { results, lastId: entries[entries.length - 1]![0] };
  }

  /** After the producer wrote these to results.jsonl. */
  async dropConsumed(runId: string, keys: readonly string[]): Promise<void> {
    if (keys.length > 0) await this.redis.hdel(runKeys(runId).records, ...keys);
  }

  /**
   * Keys marked done whose record is neither in Redis nor among `written` (results.jsonl): lost between the
   * store and the write (e.g. a torn last line). Un-marks them so they run again; returns them.
   */
  async forgetUnwritten(runId: string, pending: readonly string[]): Promise<string[]> {
    const keys = runKeys(runId);
    const lost: string[] = [];
    for (let start = 0; start < pending.length; start += 500) {
      const batch = pending.slice(start, start + 500);
      const [marked, held] = await Promise.all([this.redis.smismember(keys.done, ...batch), this.redis.hmget(keys.records, ...batch)]);
      batch.forEach((key, index) => {
        if (marked[index] === 1 && held[index] === null) lost.push(key);
      });
    }
    if (lost.length > 0) await this.redis.srem(keys.done, ...lost);
    return lost;
  }

  async storedCount(runId: string): Promise<number> {
    return this.redis.scard(runKeys(runId).done);
  }
}

function pairs(values: string[]): { key: string; worker: string } {
  const map = new Map<string, string>();
  for (let index = 0; index + 1 < values.length; index += 2) map.set(values[index]!, values[index + 1]!);
  return { key: map.get('key') ?? '', worker: map.get('worker') ?? '' };
}

/** The record stored under `key`, or why it cannot be one (with an errored stand-in that names the key). */
function parseRecord(body: string, key: string): { record: ResultRecord; unreadable?: string } {
  let problem: string;
  try {
    const value = JSON.parse(body) as Partial<ResultRecord> | null;
    if (value && typeof value === 'object' && typeof value.example_id === 'string' && Number.isInteger(value.rollout_index)) {
      if (resultKey(value.example_id, value.rollout_index!) === key) return { record: value as ResultRecord };
      problem = `it holds the record of ${resultKey(value.example_id, value.rollout_index!)}`;
    } else problem = 'it has no example_id and rollout_index';
  } catch (error) {
    problem = `it is not JSON (${(error as Error).message})`;
  }
  const unreadable = `stored result ${key} is unreadable: ${problem}`;
  const split = key.lastIndexOf('#');
  const example = { id: key.slice(0, split), prompt: '' };
  const record = erroredRecord(
    { example, rollout_index: Number(key.slice(split + 1)), environment: { name: '' } },
    { code: 'QUEUE_ERR_INVALID_RESULT', message: unreadable },
    1,
  );
  return { record, unreadable };
}
