/**
 * ATIF trajectories are written for a CLI agent's run whichever executor runs it: `corral eval --queue` writes
 * <run>/atif/<example>/<rollout>/trajectory.json exactly as a local run does. The agent is a model-free stand-in the
 * environment module exports under a CLI agent's name (codex), so no Docker, npm install or model is needed; a real
 * `corral worker` and a private redis-server run it.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { atifTrajectoryPath } from '../../src/export/atif-run-export.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { type TestRedisServer, redisServerAvailable, startRedisServer } from '../helpers/redis-server.js';
import { ROOT, readMetadata, readResults, runCorral, spawnCorral } from './runner-cli.js';

const ready = redisServerAvailable() && (await backendAvailable('process'));
const STAND_IN = join(ROOT, 'test', 'fixtures', 'queue', 'cli-stand-in-environment.ts');

async function until(what: string, check: () => boolean, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(!ready)('ATIF for a CLI agent under every executor', () => {
  let redis: TestRedisServer;
  let worker: ReturnType<typeof spawnCorral>;
  const directories: string[] = [];
  const runDirectory = () => {
    const directory = mkdtempSync(join(tmpdir(), 'corral-queue-atif-'));
    directories.push(directory);
    return directory;
  };
  const evalArgs = (directory: string) => ['eval', STAND_IN, '--agent', 'codex', '-n', '3', '-r', '2', '--out', directory, '--no-progress', '--no-preflight'];

  beforeAll(async () => {
    redis = await startRedisServer();
    worker = spawnCorral(['worker', '--redis', redis.url(), '--backend', 'process', '--concurrency', '2', '--name', 'atif-worker', '--env', STAND_IN]);
    await until('the worker is ready', () => worker.output.stdout.includes('"worker.ready"') || worker.exitCode !== null);
    if (!worker.output.stdout.includes('"worker.ready"')) throw new Error(`the worker did not start:\n${worker.output.stderr}`);
  }, 120_000);

  afterAll(async () => {
    if (worker && worker.exitCode === null) worker.kill('SIGKILL');
    await worker?.exited;
    await redis?.close();
    for (const directory of directories) rmSync(directory, { recursive: true, force: true });
  });

  it('corral eval --queue with a CLI agent writes a valid ATIF trajectory per rollout, as a local run does', async () => {
    const local = runDirectory();
    const queued = runDirectory();
    const localRun = await runCorral(evalArgs(local));
    expect(localRun.code, localRun.stderr).toBe(0);
    const queuedRun = await runCorral([...evalArgs(queued), '--queue', redis.url()]);
    expect(queuedRun.code, queuedRun.stderr).toBe(0);
    for (const directory of [local, queued]) {
      const records = readResults(directory);
      expect(records).toHaveLength(6);
      expect(readMetadata(directory)['agent']).toBe('codex');
      for (const record of records) expect(existsSync(atifTrajectoryPath(join(directory, 'atif'), record.example_id, record.rollout_index))).toBe(true);
    }
    expect(queuedRun.stderr).toContain('wrote 6 ATIF trajectories');
  }, 180_000);
});
