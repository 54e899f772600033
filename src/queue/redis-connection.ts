/**
 * Opens ioredis connections from a redis:// URL, the way BullMQ needs them (maxRetriesPerRequest null: commands
 * wait through a Redis restart instead of failing), and names the server in messages without its password.
 */
import { Redis } from 'ioredis';
import { CorralError } from '../core/errors.js';

export function parseRedisUrl(text: string, flag: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CorralError('QUEUE_ERR_REDIS_URL', `${flag} ${JSON.stringify(text)} is not a URL; give redis://host:6379 (or rediss:// for TLS)`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
    throw new CorralError('QUEUE_ERR_REDIS_URL', `${flag} ${redactedRedisUrl(url)}: the scheme must be redis:// or rediss://`);
  return url;
}

/** The URL with any password replaced, for logs, metadata.json and status. */
export function redactedRedisUrl(url: URL | string): string {
  const copy = new URL(String(url));
  if (copy.password) copy.password = '***';
  return copy.toString().replace(/\/$/, '');
}

export function openRedis(url: URL): Redis {
  return quiet(
    new Redis(url.toString(), {
      maxRetriesPerRequest: null,
      // Reconnect quickly after a restart, never give up: a worker outlives its Redis' restarts.
      retryStrategy: (attempt) => Math.min(100 * attempt, 2_000),
      lazyConnect: false,
    }),
  );
}

/** Connection errors reach callers through their commands (which wait and retry); ioredis would also print each one. */
export function quiet(redis: Redis): Redis {
  redis.on('error', () => undefined);
  return redis;
}

/** Fails fast (QUEUE_ERR_REDIS_UNREACHABLE) when nothing answers at start, instead of retrying forever. */
export async function assertRedisAnswers(redis: Redis, url: URL, timeoutMs = 5_000): Promise<void> {
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(
      () => reject(new CorralError('QUEUE_ERR_REDIS_UNREACHABLE', `no answer from Redis at ${redactedRedisUrl(url)} within ${timeoutMs} ms`)),
      timeoutMs,
    ).unref(),
  );
  await Promise.race([redis.ping(), timeout]);
}

/**
 * One short task on its own connection: fails with QUEUE_ERR_REDIS_UNREACHABLE when Redis does not answer within
 * `timeoutMs` (at the start, or during the task), and always disconnects (quit() would wait for a Redis that is gone).
 */
export async function withRedis<T>(url: URL, task: (redis: Redis) => Promise<T>, timeoutMs = 5_000): Promise<T> {
  const redis = openRedis(url);
  try {
    await assertRedisAnswers(redis, url, timeoutMs);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new CorralError('QUEUE_ERR_REDIS_UNREACHABLE', `Redis at ${redactedRedisUrl(url)} stopped answering`)), timeoutMs * 6);
    });
    try {
      return await Promise.race([task(redis), timeout]);
    } finally {
      clearTimeout(timer);
    }
  } finally {
    redis.disconnect();
  }
}
