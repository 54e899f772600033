/**
 * The rollout queue with real processes: a private redis-server (appendonly, fsync always), four `corral worker`
 * processes (three hold the queue-counting environment, one holds only the built-ins) and `corral eval --queue`
 * against the scripted model over HTTP, its replies delayed so rollouts are in flight when things break. A worker
 * SIGKILLed mid-rollout loses nothing (its jobs run elsewhere after the lease, never failed, never written twice);
 * a Redis restart mid-run loses nothing already stored; a worker without the environment never gets its jobs; the
 * records have the shape a local run writes; `corral queue status --json` shows the workers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { QUEUE_PREFIX, capabilityQueueName, runKeys } from '../../src/queue/queue-keys.js';
import type { RolloutJob } from '../../src/queue/rollout-job.js';
import { type QueueStatus, readQueueStatus } from '../../src/queue/queue-status.js';
import { listWorkers } from '../../src/queue/worker-registry.js';
import { type ChatCompletionRequestBody, type ScriptedModelServer, startScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import type { ResultRecord } from '../../src/runner/trajectory/result-record.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { type TestRedisServer, redisServerAvailable, startRedisServer } from '../helpers/redis-server.js';
import { ROOT, readMetadata, readResults, runCorral, spawnCorral } from './runner-cli.js';
import { startServe } from './serve-cli-process.js';

const ready = redisServerAvailable() && (await backendAvailable('process'));
const COUNTING = join(ROOT, 'test', 'fixtures', 'queue', 'counting-environment.ts');
const LEASE_MS = 3_000;

type Worker = ReturnType<typeof spawnCorral> & { name: string };

const userText = (body: ChatCompletionRequestBody) => String(body.messages.find((message) => message.role === 'user')?.content ?? '');
const keyOf = (record: ResultRecord) => `${record.example_id}#${record.rollout_index}`;
const workerOf = (record: ResultRecord) => (record['extra'] as { worker?: string } | undefined)?.worker;

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(!ready)('corral worker + corral eval --queue (real Redis, real processes)', () => {
  let redis: TestRedisServer;
  let client: Redis;
  let model: ScriptedModelServer;
  let delayMs = 0;
  const workers: Worker[] = [];
  const directories: string[] = [];

  const startWorker = async (name: string, environments: string[]): Promise<Worker> => {
    const args = ['worker', '--redis', redis.url(), '--backend', 'process', '--concurrency', '2', '--name', name, '--lease-ms', String(LEASE_MS)];
    for (const environment of environments) args.push('--env', environment);
    const worker = Object.assign(spawnCorral([...args, '--metrics-port', '0']), { name });
    workers.push(worker);
    await until(`${name} ready`, () => worker.output.stdout.includes('"worker.ready"') || worker.exitCode !== null, 90_000);
    if (!worker.output.stdout.includes('"worker.ready"')) throw new Error(`${name} did not start:\n${worker.output.stderr}`);
    return worker;
  };

  const runDirectory = () => {
    const directory = mkdtempSync(join(tmpdir(), 'corral-queue-run-'));
    directories.push(directory);
    return directory;
  };

  const evalArgs = (directory: string, examples: number, rollouts: number) => [
    'eval',
    COUNTING,
    '--agent',
    'openai',
    '--model',
    'scripted',
    '--base-url',
    model.baseURL,
    '-n',
    String(examples),
    '-r',
    String(rollouts),
    '--out',
    directory,
    '--no-progress',
    '--no-preflight',
  ];

  beforeAll(async () => {
    redis = await startRedisServer();
    client = new Redis(redis.url(), { maxRetriesPerRequest: null });
    // Reads back the word the prompt names ("Say a12." -> "a12"), after a delay that keeps rollouts in flight.
    model = await startScriptedModelServer((body) => ({ kind: 'text', content: /Say (\S+)\./.exec(userText(body))?.[1] ?? '', delayMs }));
    await Promise.all([startWorker('w1', [COUNTING]), startWorker('w2', [COUNTING]), startWorker('w3', [COUNTING]), startWorker('plain', [])]);
  }, 180_000);

  afterAll(async () => {
    for (const worker of workers) if (worker.exitCode === null) worker.kill('SIGKILL');
    await Promise.all(workers.map((worker) => worker.exited));
    client?.disconnect();
    await model?.close();
    await redis?.close();
    for (const directory of directories) rmSync(directory, { recursive: true, force: true });
  });

  it('a worker SIGKILLed mid-rollout loses nothing: every rollout finishes exactly once, on the others, never failed', async () => {
    delayMs = 2_000;
    const directory = runDirectory();
    const run = spawnCorral([...evalArgs(directory, 15, 2), '--queue', redis.url()]);
    const victim = workers.find((worker) => worker.name === 'w1')!;
    await until('w1 running a rollout', async () => (await listWorkers(client)).some((worker) => worker.name === 'w1' && worker.running > 0));
    victim.kill('SIGKILL');
    await victim.exited;
    // Jobs w1 held when it died: still active under its name until their lease runs out.
    const counting = new Queue(capabilityQueueName({ environment: 'queue-counting', backend: 'any' }), { connection: client, prefix: QUEUE_PREFIX });
    const held = (await counting.getActive())
      .filter((job) => job.processedBy === 'w1')
      .map((job) => `${(job.data as RolloutJob).example.id}#${(job.data as RolloutJob).rollout_index}`);
    await counting.close();
    expect(held.length).toBeGreaterThan(0);
    // w1's leases have not run out yet: the run is still in flight, with its depth bounded by the producer's -c.
    const during = await readQueueStatus(client, { rateWindowMs: 0 });
    const inFlight = during.runs.find((candidate) => candidate.total === 30);
    expect(inFlight).toBeDefined();
    expect(inFlight!.depth).toBeGreaterThan(0);
    expect(inFlight!.depth).toBeLessThanOrEqual(32);
    const code = await run.exited;
    expect(code, run.output.stderr).toBe(0);

    const records = readResults(directory);
    expect(records).toHaveLength(30);
    expect(new Set(records.map(keyOf)).size).toBe(30);
    for (const record of records) {
      expect(record.error).toBeNull();
      expect(record.reward).toBe(1);
      expect(record.final_answer).toBe(`a${record.example_id.slice(1)}`);
    }
    // What w1 held and had not stored was run again elsewhere, and written once.
    const queueInfo = readMetadata(directory)['queue'] as { rollouts: Record<string, string> };
    expect(held.filter((key) => queueInfo.rollouts[key] !== 'w1').length).toBeGreaterThan(0);
    const byWorker = new Set(records.map(workerOf));
    expect(byWorker.has('plain')).toBe(false);
    expect([...byWorker].every((name) => name === 'w1' || name === 'w2' || name === 'w3')).toBe(true);
    const metadata = readMetadata(directory);
    expect(metadata['status']).toBe('complete');
    const queue = metadata['queue'] as { run_id: string; rollouts: Record<string, string> };
    expect(Object.keys(queue.rollouts).sort()).toEqual(records.map(keyOf).sort());
    for (const record of records) expect(queue.rollouts[keyOf(record)]).toBe(workerOf(record));
    // The lost lease never failed a job.
    expect(Number(await client.hget('corral:stats', 'failed'))).toBe(0);
  }, 180_000);

  it('a Redis restart mid-run loses nothing already stored', async () => {
    delayMs = 600;
    const directory = runDirectory();
    const run = spawnCorral([...evalArgs(directory, 12, 1), '--queue', redis.url()]);
    let runId = '';
    await until('a run id in metadata.json', () => {
      try {
        runId = (readMetadata(directory)['queue'] as { run_id: string }).run_id;
        return true;
      } catch {
        return false;
      }
    });
    await until('three rollouts stored', async () => (await client.scard(runKeys(runId).done)) >= 3);
    const storedBefore = await client.smembers(runKeys(runId).done);
    await redis.restart();
    const code = await run.exited;
    expect(code, run.output.stderr).toBe(0);
    const keys = readResults(directory).map(keyOf);
    expect(keys).toHaveLength(12);
    expect(new Set(keys).size).toBe(12);
    for (const key of storedBefore) expect(keys).toContain(key);
  }, 180_000);

  it('records have the shape of a local run, plus extra.worker', async () => {
    delayMs = 0;
    const local = runDirectory();
    const queued = runDirectory();
    const localRun = await runCorral(evalArgs(local, 2, 1));
    expect(localRun.code, localRun.stderr).toBe(0);
    const queuedRun = await runCorral([...evalArgs(queued, 2, 1), '--queue', redis.url()]);
    expect(queuedRun.code, queuedRun.stderr).toBe(0);
    const shape = (record: ResultRecord) =>
      Object.fromEntries(
        Object.entries(record)
          .filter(([key]) => key !== 'extra')
          .map(([key, value]) => [key, Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value]),
      );
    // In order of completion on the queue: compared by key.
    const byKey = (records: ResultRecord[]) => records.sort((a, b) => keyOf(a).localeCompare(keyOf(b)));
    const [localRecords, queuedRecords] = [byKey(readResults(local)), byKey(readResults(queued))];
    expect(queuedRecords.map(shape)).toEqual(localRecords.map(shape));
    expect(queuedRecords.map((record) => record.completion)).toEqual(localRecords.map((record) => record.completion));
    expect(queuedRecords.every((record) => ['w2', 'w3'].includes(workerOf(record) ?? ''))).toBe(true);
    const [localMetadata, queuedMetadata] = [readMetadata(local), readMetadata(queued)];
    expect(
      Object.keys(queuedMetadata)
        .filter((key) => key !== 'queue')
        .sort(),
    ).toEqual(
      // The offered tool schemas (`tools`, for `corral export sft`) are seen only where the agent runs: a worker.
      Object.keys(localMetadata)
        .filter((key) => key !== 'tools')
        .sort(),
    );
    expect(localMetadata['tools']).toBeInstanceOf(Array);
  }, 180_000);

  it('--resume of a producer SIGKILLed mid-run collects what the workers stored meanwhile: every rollout once', async () => {
    delayMs = 800;
    const directory = runDirectory();
    const first = spawnCorral([...evalArgs(directory, 12, 1), '--queue', redis.url()]);
    await until('two groups written', () => readResults(directory).length >= 2);
    first.kill('SIGKILL');
    await first.exited;
    const runId = (readMetadata(directory)['queue'] as { run_id: string }).run_id;
    const resumed = await runCorral(['eval', '--resume', directory, '--no-progress', '--no-preflight', '--queue', redis.url()]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const keys = readResults(directory).map(keyOf);
    expect(keys).toHaveLength(12);
    expect(new Set(keys).size).toBe(12);
    expect((readMetadata(directory)['queue'] as { run_id: string }).run_id).toBe(runId);
  }, 180_000);

  it('corral serve --queue: POST /v1/rollouts runs on the workers and streams every group back', async () => {
    delayMs = 0;
    const serve = startServe(['--port', '0', '--backend', 'process', '--env', COUNTING, '--queue', redis.url()]);
    try {
      await until('serve listening', () => serve.address() !== undefined || serve.child.exitCode !== null, 90_000);
      const response = await fetch(`${serve.address()}/v1/rollouts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ env: 'queue-counting', model: { base_url: model.baseURL, model: 'scripted' }, n: 3, rollouts_per_example: 2 }),
      });
      const lines = (await response.text())
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const records = lines.filter((line) => line['type'] !== 'summary') as unknown as ResultRecord[];
      expect(records.map(keyOf).sort()).toEqual(['q0#0', 'q0#1', 'q1#0', 'q1#1', 'q2#0', 'q2#1']);
      expect(records.every((record) => record.reward === 1 && ['w2', 'w3'].includes(workerOf(record) ?? ''))).toBe(true);
      expect(lines.at(-1)).toMatchObject({ type: 'summary', status: 'complete', rollouts: 6, errored: 0 });
      // A key of the client's own would sit in Redis in clear: refused before anything is queued.
      const refused = await fetch(`${serve.address()}/v1/rollouts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ env: 'queue-counting', model: { base_url: model.baseURL, model: 'scripted', api_key: 'sk-client' }, n: 1 }),
      });
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('QUEUE_ERR_UNSUPPORTED');
    } finally {
      serve.kill();
      await serve.exited;
    }
  }, 180_000);

  it('a worker serves Prometheus /metrics: jobs by state, rollouts by outcome, running', async () => {
    const w2 = workers.find((worker) => worker.name === 'w2')!;
    const { metrics_port: port } = JSON.parse(w2.output.stdout.split('\n')[0]!) as { metrics_port: number };
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(text).toMatch(/^corral_queue_jobs\{queue="rollouts~queue-counting~any",state="waiting"\} \d+$/m);
    expect(text).toMatch(/^corral_worker_rollouts_total\{outcome="completed"\} [1-9]\d*$/m);
    expect(text).toMatch(/^corral_worker_rollouts_running \d+$/m);
  }, 60_000);

  it('corral queue status --json shows the workers, their capabilities and the lost one', async () => {
    const status = await runCorral(['queue', 'status', '--redis', redis.url(), '--json', '--rate-window-ms', '0']);
    expect(status.code, status.stderr).toBe(0);
    const parsed = JSON.parse(status.stdout) as QueueStatus;
    const byName = new Map(parsed.workers.map((worker) => [worker.name, worker]));
    for (const name of ['w2', 'w3', 'plain']) expect(byName.get(name)?.lost).toBe(false);
    expect(byName.get('w1')?.lost).toBe(true);
    expect(byName.get('w2')?.capabilities.environments).toContain('queue-counting');
    expect(byName.get('plain')?.capabilities.environments).not.toContain('queue-counting');
    expect(byName.get('plain')?.completed).toBe(0);
    expect(parsed.totals.failed).toBe(0);
  }, 60_000);

  it('SIGTERM drains a worker: its running rollouts finish and are stored, then it exits 0', async () => {
    delayMs = 1_500;
    const directory = runDirectory();
    const run = spawnCorral([...evalArgs(directory, 8, 1), '--queue', redis.url()]);
    const w3 = workers.find((worker) => worker.name === 'w3')!;
    await until('w3 running a rollout', async () => (await listWorkers(client)).some((worker) => worker.name === 'w3' && worker.running > 0));
    w3.kill('SIGTERM');
    expect(await w3.exited, w3.output.stderr).toBe(0);
    expect(w3.output.stderr).toMatch(/drained: [1-9]\d* completed/);
    expect(await run.exited, run.output.stderr).toBe(0);
    const records = readResults(directory);
    expect(new Set(records.map(keyOf)).size).toBe(8);
    expect(records.every((record) => record.error === null)).toBe(true);
    // It left the registry on the way out.
    expect((await listWorkers(client)).map((worker) => worker.name)).not.toContain('w3');
  }, 180_000);
});
