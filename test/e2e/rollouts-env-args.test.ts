/**
 * Environment arguments on POST /v1/rollouts, as on episodes and `corral eval --env-args`: a real `corral serve --env
 * <module>` process, a scripted model, and both a plain HTTP client and the Python client's rollouts(). The module's
 * dataset depends on its arguments, so each record's answer shows which arguments ran; arguments its argsSchema
 * refuses are a 400 ENV_ERR_INVALID_ARGS before anything runs.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedModelServer, startScriptedModelServer } from '../../src/testing/index.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { redisServerAvailable, startRedisServer } from '../helpers/redis-server.js';
import { python3Available } from '../helpers/test-gates.js';
import { spawnCorral } from './runner-cli.js';
import { type ServeProcess, startServe } from './serve-cli-process.js';

const execFileAsync = promisify(execFile);
const processBackend = await backendAvailable('process');
const ROOT = resolve(import.meta.dirname, '../..');

const MODULE = `import { defineEnvironment, z } from 'corral';
export default defineEnvironment({
  name: 'prefixed',
  argsSchema: z.object({ prefix: z.string().default('amber'), count: z.number().int().min(1).max(5).default(1) }).strict(),
  dataset: ({ envArgs }) => Array.from({ length: envArgs.count }, (_, index) => ({ id: 'item-' + index, prompt: 'Say anything.', answer: envArgs.prefix + '-' + index })),
  // The reward is the count argument as the rollout's state saw it: it shows where the arguments reached (under
  // --queue the example travels whole, so only the state and rubric show the worker bound the same arguments).
  state: ({ envArgs }) => ({ count: envArgs.count }),
  rubric: [{ name: 'count', weight: 1, score: ({ state }) => state.count }],
  systemPrompt: 'Answer.',
  maxTurns: 1,
});
`;

let folder = '';
let serve: ServeProcess | undefined;
let model: ScriptedModelServer | undefined;
let baseUrl = '';

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'corral-rollout-args-'));
  writeFileSync(join(folder, 'env.ts'), MODULE);
  model = await startScriptedModelServer(() => ({ kind: 'text', content: 'done' }));
  serve = startServe(['--port', '0', '--backend', 'process', '--env', join(folder, 'env.ts')], { CORRAL_CACHE_DIR: join(folder, 'cache') });
  while (serve.address() === undefined) {
    if (serve.child.exitCode !== null) throw new Error(`corral serve exited: ${serve.stderr()}`);
    await new Promise((resolveWait) => setTimeout(resolveWait, 100));
  }
  baseUrl = serve.address()!;
}, 90_000);

afterAll(async () => {
  serve?.child.kill('SIGTERM');
  await serve?.exited;
  await model?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

async function postRollouts(body: Record<string, unknown>): Promise<{ status: number; lines: Record<string, unknown>[] }> {
  const response = await fetch(`${baseUrl}/v1/rollouts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await response.text();
  return {
    status: response.status,
    lines:
      text.trim() === ''
        ? []
        : text
            .trim()
            .split('\n')
            .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe.skipIf(!processBackend)('POST /v1/rollouts with env_args', () => {
  it('binds the environment to env_args (the dataset follows them) and refuses arguments its argsSchema refuses', async () => {
    const modelField = { base_url: model!.baseURL, model: 'scripted' };
    const bound = await postRollouts({ env: 'prefixed', n: 2, model: modelField, env_args: { prefix: 'jade', count: 2 } });
    expect(bound.status).toBe(200);
    const records = bound.lines.filter((line) => line['type'] !== 'summary' && 'example_id' in line);
    expect(records.map((record) => [record['example_id'], record['answer'], record['reward']]).sort()).toEqual([
      ['item-0', 'jade-0', 2],
      ['item-1', 'jade-1', 2],
    ]);
    // Without env_args the defaults apply, as for corral eval.
    const defaults = await postRollouts({ env: 'prefixed', n: 1, model: modelField });
    expect(defaults.lines.find((line) => 'example_id' in line)).toMatchObject({ answer: 'amber-0', reward: 1 });
    const refused = await postRollouts({ env: 'prefixed', n: 1, model: modelField, env_args: { prefix: 'jade', colour: 'red' } });
    expect(refused.status).toBe(400);
    expect(refused.lines[0]).toMatchObject({ error: { code: 'ENV_ERR_INVALID_ARGS' } });
  });

  it.skipIf(!python3Available())("the Python client's rollouts(env_args=...) sends them", async () => {
    const script = `
import json, os
from corral_client import CorralClient
client = CorralClient(os.environ["CORRAL_URL"])
records = list(client.rollouts("prefixed", {"base_url": os.environ["MODEL_URL"], "model": "scripted"}, n=1, env_args={"prefix": "opal"}))
print(json.dumps([record["answer"] for record in records]))
`;
    const result = await execFileAsync('python3', ['-c', script], {
      env: { ...process.env, PYTHONPATH: join(ROOT, 'clients', 'python'), CORRAL_URL: baseUrl, MODEL_URL: model!.baseURL },
    });
    expect(JSON.parse(result.stdout)).toEqual(['opal-0']);
  });
});

describe.skipIf(!processBackend || !redisServerAvailable())('POST /v1/rollouts with env_args under corral serve --queue', () => {
  it('the queue workers run the environment bound to the request’s env_args', async () => {
    const redis = await startRedisServer();
    const cache = { CORRAL_CACHE_DIR: join(folder, 'cache') };
    const worker = spawnCorral(
      ['worker', '--redis', redis.url(), '--backend', 'process', '--concurrency', '2', '--name', 'args-worker', '--env', join(folder, 'env.ts')],
      cache,
    );
    const queued = startServe(['--port', '0', '--backend', 'process', '--env', join(folder, 'env.ts'), '--queue', redis.url()], cache);
    try {
      while (!worker.output.stdout.includes('"worker.ready"') || queued.address() === undefined) {
        if (worker.exitCode !== null || queued.child.exitCode !== null) throw new Error(`did not start:\n${worker.output.stderr}\n${queued.stderr()}`);
        await new Promise((resolveWait) => setTimeout(resolveWait, 100));
      }
      const response = await fetch(`${queued.address()}/v1/rollouts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ env: 'prefixed', n: 2, model: { base_url: model!.baseURL, model: 'scripted' }, env_args: { prefix: 'ruby', count: 2 } }),
      });
      expect(response.status).toBe(200);
      const records = (await response.text())
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => 'example_id' in line);
      expect(records.map((record) => [record['example_id'], record['answer'], record['reward'], record['error']]).sort()).toEqual([
        ['item-0', 'ruby-0', 2, null],
        ['item-1', 'ruby-1', 2, null],
      ]);
    } finally {
      queued.kill();
      worker.kill('SIGKILL');
      await Promise.all([queued.exited, worker.exited]);
      await redis.close();
    }
  }, 180_000);
});
