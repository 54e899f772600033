/**
 * The rollout API's `canaries` field through the real route (inject), the real rollout service and the run driver,
 * with a scripted model on port 0: the one broken example of the dataset is quarantined with a line of its own type
 * before its records, its records carry the flag, and the canary rollouts are neither streamed nor counted.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { buildServer } from '../../src/http/build-server.js';
import { buildToolCatalog } from '../../src/mcp/tool-catalog.js';
import { type ToolRuntime, startToolRuntime } from '../../src/cli/runtime/tool-runtime.js';
import { createRolloutService } from '../../src/cli/runtime/rollout-service.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import oneBroken from '../fixtures/canaries/one-broken-example.js';

const TOKEN = 'canary-token';
let runtime: ToolRuntime;
let model: ScriptedModelServer;
let app: FastifyInstance;

beforeAll(async () => {
  const config = loadConfig({ env: {}, flags: { host: '127.0.0.1', port: 0, token: TOKEN, backend: 'process' } });
  runtime = await startToolRuntime(config, { minIdle: 0, loadWiki: false, log: () => undefined });
  // The model always answers Paris: right for France only.
  model = await startScriptedModelServer(() => ({ kind: 'text', content: 'Paris' }));
  app = buildServer(config, {
    environments: buildToolCatalog({}),
    sandboxSource: runtime.sandboxSource,
    rollouts: createRolloutService({
      runtime,
      dataDir: undefined,
      environments: { 'capitals-one-broken': () => oneBroken },
      server: { host: '127.0.0.1' },
    }),
  });
});

afterAll(async () => {
  await app?.close();
  await model?.close();
  await runtime?.close();
});

const post = (body: Record<string, unknown>) =>
  app.inject({
    method: 'POST',
    url: '/v1/rollouts',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ env: 'capitals-one-broken', n: 5, rollouts_per_example: 2, model: { base_url: model.baseURL, model: 'scripted' }, ...body }),
  });

const lines = (payload: string) =>
  payload
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('POST /v1/rollouts with canaries', () => {
  it('quarantines exactly the broken example: a quarantine line before its records, flagged records, canaries not counted', async () => {
    const response = await post({ canaries: 1 });
    expect(response.statusCode, response.body).toBe(200);
    const stream = lines(response.body);
    const quarantines = stream.filter((line) => line['type'] === 'quarantine');
    expect(quarantines).toEqual([
      { type: 'quarantine', example_id: 'atlantis', reasons: ['floor-scored'], oracle_reward: 1, floor_reward: 1, oracle_error: null },
    ]);
    const records = stream.filter((line) => line['type'] === undefined);
    expect(records).toHaveLength(10);
    expect(stream.findIndex((line) => line['type'] === 'quarantine')).toBeLessThan(
      stream.findIndex((line) => line['type'] === undefined && line['example_id'] === 'atlantis'),
    );
    expect(records.filter((record) => record['quarantine']).map((record) => record['example_id'])).toEqual(['atlantis', 'atlantis']);
    expect(stream.at(-1)).toMatchObject({
      type: 'summary',
      status: 'complete',
      rollouts: 10,
      avg_reward: 0.2,
      canaries: { canaried_examples: 5, quarantined: ['atlantis'] },
    });
    // Only the run's own rollouts asked the model: the canaries' oracle and floor are model-free.
    expect(model.requests).toHaveLength(10);
  });

  it('refuses a rate outside (0, 1] naming the field', async () => {
    const response = await post({ canaries: 1.5 });
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('canaries');
  });
});
