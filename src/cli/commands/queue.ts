/** `corral queue status --redis <url> [--json]`: the rollout queue's workers, depth per run and queue, rates and failures. */
import type { Command } from 'commander';
import { formatQueueStatus, readQueueStatus } from '../../queue/queue-status.js';
import { assertRedisAnswers, openRedis, parseRedisUrl } from '../../queue/redis-connection.js';

export function registerQueueCommand(program: Command): void {
  const queue = program.command('queue').description('the rollout queue on Redis (corral worker, corral eval --queue)');
  queue
    .command('status')
    .description('workers (capabilities, heartbeat, running), depth per run and queue, rates and failures')
    .requiredOption('--redis <url>', "the queue's Redis, e.g. redis://127.0.0.1:6379")
    .option('--json', 'one JSON object instead of text')
    .option('--rate-window-ms <ms>', 'how long to watch the stored-results counter for the rate', '1000')
    .action(async (flags: { redis: string; json?: boolean; rateWindowMs: string }) => {
      const url = parseRedisUrl(flags.redis, '--redis');
      const redis = openRedis(url);
      try {
        await assertRedisAnswers(redis, url);
        const status = await readQueueStatus(redis, { rateWindowMs: Math.max(0, Number(flags.rateWindowMs) || 0) });
        process.stdout.write(`${flags.json ? JSON.stringify(status) : formatQueueStatus(status)}\n`);
      } finally {
        redis.disconnect();
      }
    });
}
