/**
 * Terminal trials through the queue (issue 22): `corral eval <task folder> --agent oracle --queue redis://…` enqueues
 * one job per trial, a real `corral worker --backend docker --env <task folder>` child process runs them with the
 * trial executor (real Docker), and the producer writes their records to results.jsonl like every queued run.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { markedHarborTask } from '../helpers/marked-task.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildImages } from '../../src/sandbox/docker/image-builder.js';
import { TASK_BASE_IMAGE_DEFINITIONS } from '../../src/sandbox/docker/image-definition.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { readMetadata, readResults, runCorral, spawnCorral } from './runner-cli.js';

const dockerAvailable = await backendAvailable('docker');
const REDIS = 'redis://127.0.0.1:6379';

let workDirectory: string;
beforeAll(async () => {
  workDirectory = await mkdtemp(join(tmpdir(), 'corral-terminal-queue-'));
});
afterAll(async () => {
  if (workDirectory) await rm(workDirectory, { recursive: true, force: true });
});

describe.runIf(dockerAvailable)('corral eval <task folder> --queue', () => {
  beforeAll(async () => {
    await buildImages({ offline: true, definitions: TASK_BASE_IMAGE_DEFINITIONS, log: (line) => console.log(`[images] ${line}`) });
  }, 1_500_000);

  it('a worker serving the task folder runs the trials; the producer writes their records', async () => {
    const task = await markedHarborTask(workDirectory, { oracleWritesMark: true });
    const workerCache = join(workDirectory, 'worker-cache');
    const worker = spawnCorral(['worker', '--redis', REDIS, '--backend', 'docker', '--env', task, '--name', 'trial-worker', '--concurrency', '2'], {
      CORRAL_CACHE_DIR: workerCache,
    });
    try {
      await new Promise<void>((resolveReady, reject) => {
        const poll = setInterval(() => {
          if (worker.output.stdout.includes('"worker.ready"')) {
            clearInterval(poll);
            resolveReady();
          }
        }, 100);
        void worker.exited.then((code) => {
          clearInterval(poll);
          reject(new Error(`worker exited (${code}) before it was ready:\n${worker.output.stderr.slice(-3000)}`));
        });
      });
      const out = join(workDirectory, 'queued-run');
      const run = await runCorral(['eval', task, '--agent', 'oracle', '-r', '2', '--queue', REDIS, '--out', out, '--no-progress']);
      expect(run.code, run.stderr + worker.output.stderr).toBe(0);
      const records = readResults(out);
      expect(records.map((record) => [record.example_id, record.rollout_index, record.reward, record.error]).sort()).toEqual([
        ['corral-fixtures/always-zero', 0, 1, null],
        ['corral-fixtures/always-zero', 1, 1, null],
      ]);
      expect(records.map((record) => (record.extra as { worker?: string } | undefined)?.worker)).toEqual(['trial-worker', 'trial-worker']);
      const metadata = readMetadata(out) as { queue: { run_id: string } };
      expect(metadata).toMatchObject({ env: 'terminal', agent: 'oracle', status: 'complete', terminal: { tasks: task } });
      // Each trial's Harbor folder is on the worker, under its cache, for the run.
      const trialFolders = join(workerCache, 'worker-trials', metadata.queue.run_id);
      expect(existsSync(trialFolders)).toBe(true);
      expect((await readdir(trialFolders)).length).toBe(2);
    } finally {
      worker.kill('SIGTERM');
      await worker.exited;
    }
  }, 900_000);
});
