/**
 * How `corral eval` starts and stops, through the real CLI: every path (ordinary, --queue, CLI coding agents,
 * terminal trials) runs the one model preflight, retried as model calls are and naming the endpoint; --base-url
 * without --model is refused; a refused start (exit 2) leaves no run folder; --queue with a Redis that does not
 * answer is refused at once; one Ctrl-C ends a queued run (metadata.json says cancelled) and removes its waiting
 * jobs; `corral queue cancel` and `corral queue purge --yes` remove jobs left behind.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_PREFIX, capabilityQueueName } from '../../src/queue/queue-keys.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { type TestRedisServer, freePort, redisServerAvailable, startRedisServer } from '../helpers/redis-server.js';
import { COUNTING_ENVIRONMENT, echoScript, waitFor } from './queue-cluster.js';
import { ROOT, readMetadata, readResults, runCorral, spawnCorral } from './runner-cli.js';

const ready = redisServerAvailable() && (await backendAvailable('process'));
const TERMINAL_TASK = join(ROOT, 'test', 'fixtures', 'terminal', 'tb-v1', 'greet-file');

interface ModelsEndpoint {
  baseURL: string;
  /** GET /models requests seen. */
  modelListRequests: number;
  close(): Promise<void>;
}

/**
 * An OpenAI-compatible endpoint whose GET /models answers as `models(n)` says for its n-th request (0-based), and
 * whose other requests go to the scripted model server.
 */
async function startModelsEndpoint(upstream: ScriptedModelServer, models: (index: number) => { status: number; body: unknown }): Promise<ModelsEndpoint> {
  const target = new URL(upstream.baseURL);
  const state = { modelListRequests: 0 };
  const server: Server = createServer((request, response) => {
    if (request.method === 'GET' && request.url?.endsWith('/models')) {
      const answer = models(state.modelListRequests++);
      response.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
      return;
    }
    const forward = httpRequest({ host: target.hostname, port: target.port, method: request.method, path: request.url, headers: request.headers }, (reply) => {
      response.writeHead(reply.statusCode ?? 502, reply.headers);
      reply.pipe(response);
    });
    forward.once('error', () => response.destroy());
    request.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    get modelListRequests() {
      return state.modelListRequests;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const SERVED = { status: 200, body: { object: 'list', data: [{ id: 'scripted', object: 'model' }] } };

describe.skipIf(!ready)('corral eval: run start, preflight and cancel', () => {
  let model: ScriptedModelServer;
  let redis: TestRedisServer;
  let client: Redis;
  let scratch: string;
  let closedPort: number;

  const countingArgs = (baseURL: string, examples: number, out: string, extra: string[] = []) => [
    'eval',
    COUNTING_ENVIRONMENT,
    '--agent',
    'openai',
    '--model',
    'scripted',
    '--base-url',
    baseURL,
    '-n',
    String(examples),
    '--backend',
    'process',
    '--out',
    out,
    '--no-progress',
    ...extra,
  ];
  const countingQueue = () =>
    new Queue(capabilityQueueName({ environment: 'queue-counting', backend: 'process' }), { connection: client, prefix: QUEUE_PREFIX });
  const waitingOf = async (runId: string) => {
    const queue = countingQueue();
    try {
      return (await queue.getJobs(['waiting', 'delayed', 'prioritized'])).filter((job) => String(job.id).startsWith(`r.${runId}.`)).length;
    } finally {
      await queue.close();
    }
  };

  beforeAll(async () => {
    model = await startScriptedModelServer(echoScript());
    redis = await startRedisServer();
    client = new Redis(redis.url(), { maxRetriesPerRequest: null });
    scratch = mkdtempSync(join(tmpdir(), 'corral-run-start-'));
    closedPort = await freePort();
  });
  afterAll(async () => {
    client?.disconnect();
    await redis?.close();
    await model?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('refuses --base-url without --model (exit 2) instead of running the model-free agent, and leaves no folder', async () => {
    const out = join(scratch, 'base-url-only');
    const result = await runCorral(['eval', 'wiki-search', '--base-url', model.baseURL, '-n', '1', '--out', out, '--no-progress']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('CFG_ERR_INVALID');
    expect(result.stderr).toContain('--base-url');
    expect(result.stderr).toContain('--model');
    expect(existsSync(out)).toBe(false);
  });

  it('--queue with a Redis that does not answer is refused (exit 2, QUEUE_ERR_REDIS_UNREACHABLE) and leaves no folder', async () => {
    const out = join(scratch, 'no-redis');
    const result = await runCorral([...countingArgs(model.baseURL, 2, out), '--queue', `redis://127.0.0.1:${closedPort}`]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('QUEUE_ERR_REDIS_UNREACHABLE');
    expect(result.stderr).toContain(`127.0.0.1:${closedPort}`);
    expect(existsSync(out)).toBe(false);
  });

  it('a CLI coding agent against a closed port is refused by the preflight, naming the endpoint', async () => {
    const out = join(scratch, 'codex-closed');
    const closed = `http://127.0.0.1:${closedPort}/v1`;
    const result = await runCorral([
      'eval',
      COUNTING_ENVIRONMENT,
      '--agent',
      'codex',
      '--model',
      'm',
      '--base-url',
      closed,
      '--model-retries',
      '0',
      '--out',
      out,
    ]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('MODEL_ERR_CONNECTION');
    expect(result.stderr).toContain(closed);
    expect(existsSync(out)).toBe(false);
  });

  it('a CLI coding agent against an endpoint that answers 500 is refused after the model-call retries', async () => {
    const failing = await startModelsEndpoint(model, () => ({ status: 500, body: { error: { message: 'upstream down' } } }));
    try {
      const out = join(scratch, 'claude-500');
      const result = await runCorral([
        'eval',
        COUNTING_ENVIRONMENT,
        '--agent',
        'claude-code',
        '--model',
        'm',
        '--base-url',
        failing.baseURL,
        '--model-retries',
        '2',
        '--out',
        out,
      ]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain('MODEL_ERR_SERVER');
      expect(result.stderr).toContain(`${failing.baseURL} answers HTTP 500`);
      expect(failing.modelListRequests).toBe(3);
      expect(existsSync(out)).toBe(false);
    } finally {
      await failing.close();
    }
  });

  it('a queued run checks --model against the endpoint /models before anything is queued', async () => {
    const listing = await startModelsEndpoint(model, () => SERVED);
    try {
      const out = join(scratch, 'queued-wrong-model');
      const args = countingArgs(listing.baseURL, 2, out, ['--queue', redis.url()]).map((value) => (value === 'scripted' ? 'not-served' : value));
      const result = await runCorral(args);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`${listing.baseURL} serves scripted, not 'not-served'`);
      expect(existsSync(out)).toBe(false);
      expect(await client.scard(`${QUEUE_PREFIX}:runs`)).toBe(0);
    } finally {
      await listing.close();
    }
  });

  it('terminal trials run the same preflight', async () => {
    const out = join(scratch, 'terminal-closed');
    const closed = `http://127.0.0.1:${closedPort}/v1`;
    const result = await runCorral([
      'eval',
      'terminal',
      '--tasks',
      TERMINAL_TASK,
      '--agent',
      'openai',
      '--model',
      'm',
      '--base-url',
      closed,
      '--model-retries',
      '0',
      '--out',
      out,
    ]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('MODEL_ERR_CONNECTION');
    expect(result.stderr).toContain(closed);
    expect(existsSync(out)).toBe(false);
  });

  it('a transient failure of GET /models is retried: an endpoint failing one request in three does not refuse the run', async () => {
    const flaky = await startModelsEndpoint(model, (index) => (index % 3 === 0 ? { status: 503, body: { error: { message: 'busy' } } } : SERVED));
    try {
      const out = join(scratch, 'flaky');
      const result = await runCorral(countingArgs(flaky.baseURL, 2, out));
      expect(result.code, result.stderr).toBe(0);
      expect(flaky.modelListRequests).toBe(2);
      expect(readResults(out).map((record) => record.reward)).toEqual([1, 1]);
    } finally {
      await flaky.close();
    }
  });

  it('a CLI agent that is not installed is refused before the run folder exists', async () => {
    const out = join(scratch, 'not-installed');
    const cache = mkdtempSync(join(scratch, 'empty-cache-'));
    const result = await runCorral(['eval', COUNTING_ENVIRONMENT, '--agent', 'codex', '--model', 'scripted', '--base-url', model.baseURL, '--out', out], {
      CORRAL_CACHE_DIR: cache,
    });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/codex/);
    expect(existsSync(out)).toBe(false);
  });

  it('one Ctrl-C ends a queued run: metadata.json says cancelled and its waiting jobs leave the queue', async () => {
    const out = join(scratch, 'queued-cancel');
    const run = spawnCorral([...countingArgs(model.baseURL, 5, out), '--queue', redis.url()]);
    let runId = '';
    await waitFor('five waiting jobs', async () => {
      if (!existsSync(join(out, 'metadata.json'))) return false;
      runId = (readMetadata(out)['queue'] as { run_id: string }).run_id;
      return (await waitingOf(runId)) === 5;
    });
    run.kill('SIGINT');
    expect(await run.exited, run.output.stderr).toBe(130);
    expect(readMetadata(out)['status']).toBe('cancelled');
    expect(await waitingOf(runId)).toBe(0);
    expect(run.output.stderr).toContain('5 waiting rollouts removed');
  });

  it('one Ctrl-C ends a queued run whose Redis went away: cancelled, and the way to remove its jobs later is named', async () => {
    const lonely = await startRedisServer();
    const lonelyClient = new Redis(lonely.url(), { maxRetriesPerRequest: null });
    try {
      const out = join(scratch, 'redis-gone');
      const run = spawnCorral([...countingArgs(model.baseURL, 3, out), '--queue', lonely.url()]);
      const queue = new Queue(capabilityQueueName({ environment: 'queue-counting', backend: 'process' }), { connection: lonelyClient, prefix: QUEUE_PREFIX });
      await waitFor('three waiting jobs', async () => (await queue.getWaitingCount()) === 3);
      await queue.close();
      lonelyClient.disconnect();
      await lonely.close();
      run.kill('SIGINT');
      expect(await run.exited, run.output.stderr).toBe(130);
      expect(readMetadata(out)['status']).toBe('cancelled');
      const runId = (readMetadata(out)['queue'] as { run_id: string }).run_id;
      expect(run.output.stderr).toContain(`corral queue cancel ${runId}`);
    } finally {
      lonelyClient.disconnect();
      await lonely.close();
    }
  });

  it('corral queue cancel removes a run left behind; corral queue purge needs --yes', async () => {
    const leaveBehind = async (name: string) => {
      const out = join(scratch, name);
      const run = spawnCorral([...countingArgs(model.baseURL, 3, out), '--queue', redis.url()]);
      let runId = '';
      await waitFor(`three waiting jobs of ${name}`, async () => {
        if (!existsSync(join(out, 'metadata.json'))) return false;
        runId = (readMetadata(out)['queue'] as { run_id: string }).run_id;
        return (await waitingOf(runId)) === 3;
      });
      run.kill('SIGKILL');
      await run.exited;
      return runId;
    };
    const first = await leaveBehind('left-1');
    const cancel = await runCorral(['queue', 'cancel', first, '--redis', redis.url()]);
    expect(cancel.code, cancel.stderr).toBe(0);
    expect(cancel.stdout).toContain('3 waiting rollouts removed');
    expect(await waitingOf(first)).toBe(0);
    const unknown = await runCorral(['queue', 'cancel', 'nosuchrun', '--redis', redis.url()]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('QUEUE_ERR_UNKNOWN_RUN');

    const second = await leaveBehind('left-2');
    const refused = await runCorral(['queue', 'purge', '--redis', redis.url()]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--yes');
    expect(await waitingOf(second)).toBe(3);
    const purge = await runCorral(['queue', 'purge', '--redis', redis.url(), '--yes', '--json']);
    expect(purge.code, purge.stderr).toBe(0);
    expect(JSON.parse(purge.stdout)).toMatchObject({ runs: [second], removed: 3 });
    expect(await waitingOf(second)).toBe(0);
  });
});
