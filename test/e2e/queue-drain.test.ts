/**
 * Issue 15: 10,000 queued instant rollouts (the counting environment, one scripted model reply each) drain
 * through two `corral worker` processes with 0 lost and 0 duplicated, every rollout scored, both workers used.
 * A private redis-server (appendonly, fsync always) keeps the test apart from anything else on the machine.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedModelServer, startScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import { redisServerAvailable, startRedisServer, type TestRedisServer } from '../helpers/redis-server.js';
import { COUNTING_ENVIRONMENT, echoScript, exactlyOnceReport, startWorker, type WorkerProcess, workerMismatches, workerOf } from './queue-cluster.js';
import { readMetadata, readResults, spawnCorral } from './runner-cli.js';

const available = redisServerAvailable();
const ROLLOUTS = 10_000;

describe.skipIf(!available)('draining 10,000 queued rollouts', () => {
  let redis: TestRedisServer;
  let model: ScriptedModelServer;
  let workers: WorkerProcess[] = [];
  let scratch: string;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'corral-queue-drain-'));
    redis = await startRedisServer();
    model = await startScriptedModelServer(echoScript(), { recordRequests: false });
  });

  afterAll(async () => {
    for (const worker of workers) worker.kill();
    await Promise.all(workers.map((worker) => worker.exited));
    await model?.close();
    await redis?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('0 lost, 0 duplicated, all scored, across two workers', async () => {
    workers = [0, 1].map((index) => startWorker({ name: `drain-${index}`, redisUrl: redis.url(), concurrency: 32, leaseMs: 30_000 }));
    await Promise.all(workers.map((worker) => worker.ready));
    const out = join(scratch, 'run');
    const run = spawnCorral(
      [
        'eval',
        COUNTING_ENVIRONMENT,
        '--queue',
        redis.url(),
        '--model',
        'scripted',
        '--base-url',
        model.baseURL,
        '--api-key',
        'queue-test-key',
        '-n',
        String(ROLLOUTS),
        '-c',
        '256',
        '--backend',
        'process',
        '--out',
        out,
        '--no-progress',
      ],
      { OPENAI_API_KEY: 'queue-test-key' },
    );
    expect(await run.exited, run.output.stderr.slice(-3000)).toBe(0);

    const records = readResults(out);
    expect(records).toHaveLength(ROLLOUTS);
    expect(exactlyOnceReport(records, ROLLOUTS, 1)).toEqual({ duplicated: [], missing: [] });
    expect(records.filter((record) => record.error !== null || record.reward !== 1)).toEqual([]);
    const perWorker = new Map<string, number>();
    for (const record of records) perWorker.set(workerOf(record) ?? 'unnamed', (perWorker.get(workerOf(record) ?? 'unnamed') ?? 0) + 1);
    expect([...perWorker.keys()].sort()).toEqual(['drain-0', 'drain-1']);
    expect(workerMismatches(records, readMetadata(out))).toEqual([]);
    // Both workers exit cleanly on SIGTERM once the queue is empty.
    const codes = await Promise.all(workers.map((worker) => worker.stop()));
    expect(codes, workers.map((worker) => worker.output.stderr.slice(-2000)).join('\n')).toEqual([0, 0]);
  }, 900_000);
});
