/**
 * `corral queue status|cancel|purge --redis <url>`: the rollout queue's workers, depth per run and queue, rates and
 * failures; cancelling one run (its waiting jobs removed, workers skip the rest); purging every run and queue
 * (only with --yes: it removes other people's runs too).
 */
import type { Command } from 'commander';
import { CorralError } from '../../core/errors.js';
import { formatQueueStatus, readQueueStatus } from '../../queue/queue-status.js';
import { assertRedisAnswers, openRedis, parseRedisUrl, redactedRedisUrl, withRedis } from '../../queue/redis-connection.js';
import { cancelQueuedRun, purgePreview, purgeQueue } from '../../queue/run-cancellation.js';

const REDIS_FLAG = ['--redis <url>', "the queue's Redis, e.g. redis://127.0.0.1:6379"] as const;

export function registerQueueCommand(program: Command): void {
  const queue = program.command('queue').description('the rollout queue on Redis (corral worker, corral eval --queue)');
  queue
    .command('status')
    .description('workers (capabilities, heartbeat, running), depth per run and queue, rates and failures')
    .requiredOption(...REDIS_FLAG)
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
  queue
    .command('cancel')
    .description('cancel a queued run: remove its waiting jobs; workers skip any they still get (running rollouts finish; --resume collects them)')
    .argument('<run-id>', "the run's queue id (metadata.json queue.run_id, or corral queue status)")
    .requiredOption(...REDIS_FLAG)
    .option('--json', 'one JSON object instead of text')
    .action(async (runId: string, flags: { redis: string; json?: boolean }) => {
      const url = parseRedisUrl(flags.redis, '--redis');
      const outcome = await withRedis(url, (redis) => cancelQueuedRun(redis, runId));
      process.stdout.write(
        flags.json
          ? `${JSON.stringify(outcome)}\n`
          : `cancelled run ${runId}: ${outcome.removed} waiting rollouts removed from ${outcome.queue ?? 'no queue'}\n`,
      );
    });
  queue
    .command('purge')
    .description('cancel every run and remove every waiting, delayed and failed job from every rollout queue (needs --yes)')
    .requiredOption(...REDIS_FLAG)
    .option('--yes', 'really purge: this removes the jobs of every run on this Redis, not only yours')
    .option('--json', 'one JSON object instead of text')
    .action(async (flags: { redis: string; yes?: boolean; json?: boolean }) => {
      const url = parseRedisUrl(flags.redis, '--redis');
      if (!flags.yes) {
        const preview = await withRedis(url, purgePreview);
        throw new CorralError(
          'CFG_ERR_INVALID',
          `corral queue purge removes ${preview.unclaimed} waiting, delayed and failed jobs of ${preview.runs.length} runs from ${preview.queues.length} queues at ${redactedRedisUrl(url)}; run it again with --yes to do so (or cancel one run: corral queue cancel <run-id>)`,
        );
      }
      const outcome = await withRedis(url, purgeQueue);
      process.stdout.write(
        flags.json
          ? `${JSON.stringify(outcome)}\n`
          : `purged: ${outcome.removed} jobs removed from ${outcome.queues.length} queues; ${outcome.runs.length} runs cancelled\n`,
      );
    });
}
