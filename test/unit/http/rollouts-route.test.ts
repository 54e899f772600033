/**
 * POST /v1/rollouts through the real app with inject() (no listen, no runner, no sandbox): the request schema's
 * 400s name the offending field before the service is asked anything, a caller error from the service keeps its
 * code and field, the guards (token, Host) and the per-principal quota apply, and a run streams its groups as
 * NDJSON with the summary last, a failed run included. test/e2e/rollouts-api.test.ts covers the same route with
 * the real runner; this file is the inner loop's copy of its contract.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.js';
import { CorralError } from '../../../src/core/errors.js';
import { buildServer } from '../../../src/http/build-server.js';
import type { PreparedRollouts, RolloutRequest, RolloutService } from '../../../src/http/rollouts-contract.js';
import { buildToolCatalog } from '../../../src/mcp/tool-catalog.js';
import { smallWikiIndex } from '../../../src/testing/small-wiki-index.js';

const TOKEN = 'route-token';
const AUTH = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const MODEL = { base_url: 'http://127.0.0.1:9/v1', model: 'scripted' };

const scratch = mkdtempSync(join(tmpdir(), 'corral-rollouts-route-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

/** A service whose prepare() is scripted per test; it records every request it was asked to prepare. */
function scriptedService(prepare: (request: RolloutRequest) => Promise<PreparedRollouts>) {
  const prepared: RolloutRequest[] = [];
  const service: RolloutService = {
    prepare: (request) => {
      prepared.push(request);
      return prepare(request);
    },
  };
  return { service, prepared };
}

function preparedRun(run: PreparedRollouts['run'], numExamples = 2): PreparedRollouts {
  return { env: 'wiki-search', model: 'scripted', numExamples, rolloutsPerExample: 1, run };
}

function newApp(service: RolloutService, server: Record<string, unknown> = {}): FastifyInstance {
  const configFile = join(scratch, `config-${apps.length}-${Date.now()}.json`);
  writeFileSync(configFile, JSON.stringify({ server }));
  const config = loadConfig({ env: {}, flags: { host: '127.0.0.1', port: 0, token: TOKEN }, configFile });
  const app = buildServer(config, {
    environments: buildToolCatalog({ wiki: smallWikiIndex() }),
    sandboxSource: { acquire: () => Promise.reject(new CorralError('SBX_ERR_UNAVAILABLE', 'no sandboxes in this test')) },
    rollouts: service,
  });
  apps.push(app);
  return app;
}

const post = (app: FastifyInstance, body: unknown, headers: Record<string, string> = AUTH) =>
  app.inject({ method: 'POST', url: '/v1/rollouts', headers, payload: typeof body === 'string' ? body : JSON.stringify(body) });

const ndjson = (payload: string) =>
  payload
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('POST /v1/rollouts (inject)', () => {
  it('answers 400 naming the offending field, and never asks the service', async () => {
    const { service, prepared } = scriptedService(() => Promise.reject(new Error('must not be called')));
    const app = newApp(service);
    const cases: [unknown, string][] = [
      [{ n: 1, model: MODEL }, 'env'],
      [{ env: 'wiki-search', n: 1 }, 'model'],
      [{ env: 'wiki-search', n: 1, model: { ...MODEL, base_url: 'not a url' } }, 'model.base_url'],
      [{ env: 'wiki-search', n: 1, model: { ...MODEL, max_retries: 21 } }, 'model.max_retries'],
      [{ env: 'wiki-search', n: 1, model: MODEL, rollouts_per_example: 0 }, 'rollouts_per_example'],
      [{ env: 'wiki-search', n: 1, model: MODEL, temperature: 0.5 }, 'temperature'],
      [{ env: 'wiki-search', examples: [{ id: 'a' }], model: MODEL }, 'examples.0.prompt'],
      [{ env: 'wiki-search', examples: [{ id: 'a', prompt: [{ role: 'robot', content: 'x' }] }], model: MODEL }, 'examples.0.prompt'],
      [
        {
          env: 'wiki-search',
          examples: [
            { id: 'a', prompt: 'x' },
            { id: 'a', prompt: 'y' },
          ],
          model: MODEL,
        },
        'examples',
      ],
      [{ env: 'wiki-search', example_ids: ['a', 'a'], model: MODEL }, 'example_ids'],
      [{ env: 'wiki-search', n: 1, examples: [{ id: 'a', prompt: 'x' }], model: MODEL }, 'n'],
      [{ env: 'wiki-search', model: MODEL }, 'n'],
      [{ env: 'wiki-search', n: 1, model: MODEL, record: { series: '../escape', step: 0 } }, 'record.series'],
      [{ env: 'wiki-search', n: 1, model: MODEL, record: { series: 'curve', step: -1 } }, 'record.step'],
    ];
    for (const [body, field] of cases) {
      const response = await post(app, body);
      const reply = response.json<{ error: { code: string; message: string; field: string } }>();
      expect([response.statusCode, reply.error.code, reply.error.field], JSON.stringify(body)).toEqual([400, 'INVALID_REQUEST', field]);
      expect(reply.error.message).toContain(field);
    }
    const notJson = await post(app, '{"env":');
    expect(notJson.statusCode).toBe(400);
    expect(prepared).toEqual([]);
  });

  it('asks for a series only where the server keeps a runs folder', async () => {
    const { service, prepared } = scriptedService(() => Promise.reject(new Error('must not be called')));
    const response = await post(newApp(service), { env: 'wiki-search', n: 1, model: MODEL, record: { series: 'curve', step: 0 } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: { code: 'SERIES_ERR_UNAVAILABLE', field: 'record' } });
    expect(prepared).toEqual([]);
  });

  it('passes the parsed request to the service, defaults applied', async () => {
    const { service, prepared } = scriptedService(() => Promise.resolve(preparedRun(() => Promise.resolve(stats(0)), 0)));
    const response = await post(newApp(service), { env: 'wiki-search', n: 3, model: MODEL });
    expect(response.statusCode).toBe(200);
    expect(prepared).toEqual([
      expect.objectContaining({ env: 'wiki-search', n: 3, rollouts_per_example: 1, samples: false, return_tokens: true, token_in: false }),
    ]);
  });

  it("keeps a caller error's code and field from the service (an unknown environment, invalid env args)", async () => {
    const refusals = [
      new CorralError('ENV_ERR_NOT_FOUND', "env: no served environment is called 'nope'", { details: { field: 'env' } }),
      new CorralError('ENV_ERR_INVALID_ARGS', 'env_args.level: expected a number', { details: { field: 'env_args', issues: [{ path: ['level'] }] } }),
    ];
    for (const refusal of refusals) {
      const { service } = scriptedService(() => Promise.reject(refusal));
      const response = await post(newApp(service), { env: 'nope', n: 1, model: MODEL });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ error: { code: refusal.code, message: refusal.message, ...refusal.details } });
    }
  });

  it('answers an infrastructure failure while preparing with its code: 503 when transient (retry), 500 when not', async () => {
    const failures = [
      { error: new CorralError('POOL_ERR_CREATE_FAILED', 'the backend failed to create a sandbox'), status: 503 },
      { error: new CorralError('SBX_ERR_INTERNAL', 'the backend broke its own contract'), status: 500 },
    ];
    for (const failure of failures) {
      const { service } = scriptedService(() => Promise.reject(failure.error));
      const response = await post(newApp(service), { env: 'wiki-search', n: 1, model: MODEL });
      expect(response.statusCode).toBe(failure.error.transient ? 503 : 500);
      expect(response.statusCode).toBe(failure.status);
      expect(response.json()).toEqual({ error: { code: failure.error.code, message: failure.error.message, transient: failure.error.transient } });
    }
  });

  it('applies the bearer token and the Host check before the route runs', async () => {
    const { service, prepared } = scriptedService(() => Promise.reject(new Error('must not be called')));
    const app = newApp(service);
    const body = { env: 'wiki-search', n: 1, model: MODEL };
    const noToken = await post(app, body, { 'content-type': 'application/json' });
    expect(noToken.statusCode).toBe(401);
    expect(noToken.headers['www-authenticate']).toBe('Bearer');
    const wrongToken = await post(app, body, { ...AUTH, authorization: 'Bearer nope' });
    expect(wrongToken.statusCode).toBe(401);
    const foreignHost = await post(app, body, { ...AUTH, host: 'evil.example' });
    expect(foreignHost.statusCode).toBe(403);
    expect(prepared).toEqual([]);
  });

  it('streams each group as NDJSON records, then a summary with the run statistics', async () => {
    const { service } = scriptedService(() =>
      Promise.resolve(
        preparedRun(async ({ onGroup }) => {
          onGroup([{ example_id: 'a', reward: 1 }]);
          onGroup([{ example_id: 'b', reward: 0 }]);
          return { ...stats(2), avg_reward: 0.5, metric_averages: { exact: 0.5 } };
        }),
      ),
    );
    const response = await post(newApp(service), { env: 'wiki-search', n: 2, model: MODEL, seed: 7 });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    const lines = ndjson(response.payload);
    expect(lines.slice(0, 2)).toEqual([
      { example_id: 'a', reward: 1 },
      { example_id: 'b', reward: 0 },
    ]);
    expect(lines[2]).toMatchObject({
      type: 'summary',
      status: 'complete',
      env_id: 'wiki-search',
      seed: 7,
      rollouts: 2,
      errored: 0,
      avg_reward: 0.5,
      avg_exact: 0.5,
    });
    expect(lines).toHaveLength(3);
  });

  it('ends a run that throws with a failed summary carrying the code, after the groups it streamed', async () => {
    const { service } = scriptedService(() =>
      Promise.resolve(
        preparedRun(async ({ onGroup }) => {
          onGroup([{ example_id: 'a', reward: 1 }]);
          throw new CorralError('SBX_ERR_UNAVAILABLE', 'the backend went away');
        }),
      ),
    );
    const lines = ndjson((await post(newApp(service), { env: 'wiki-search', n: 2, model: MODEL })).payload);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({
      type: 'summary',
      status: 'failed',
      rollouts: 1,
      error: { code: 'SBX_ERR_UNAVAILABLE', message: 'the backend went away' },
    });
  });

  it('says incomplete when fewer records came back than were asked for', async () => {
    const { service } = scriptedService(() => Promise.resolve(preparedRun(async ({ onGroup }) => (onGroup([{ example_id: 'a' }]), stats(1)), 2)));
    const lines = ndjson((await post(newApp(service), { env: 'wiki-search', n: 2, model: MODEL })).payload);
    expect(lines.at(-1)).toMatchObject({ type: 'summary', status: 'incomplete', num_examples: 2 });
  });

  it('holds a principal to maxRolloutRequestsPerPrincipal in flight (429 with the quota named), then frees it', async () => {
    let finishRun!: () => void;
    const running = new Promise<void>((resolve) => (finishRun = resolve));
    let started!: () => void;
    const runStarted = new Promise<void>((resolve) => (started = resolve));
    const { service } = scriptedService(() =>
      Promise.resolve(
        preparedRun(async () => {
          started();
          await running;
          return stats(0);
        }, 0),
      ),
    );
    const app = newApp(service, { maxRolloutRequestsPerPrincipal: 1 });
    const body = { env: 'wiki-search', n: 1, model: MODEL };
    const first = post(app, body);
    await runStarted;
    const second = await post(app, body);
    expect(second.statusCode).toBe(429);
    expect(second.json()).toMatchObject({ error: { code: 'HTTP_ERR_QUOTA_EXCEEDED', quota: 'maxRolloutRequestsPerPrincipal', limit: 1 } });
    finishRun();
    expect((await first).statusCode).toBe(200);
    expect((await post(app, body)).statusCode).toBe(200);
  });
});

function stats(rollouts: number) {
  return { rollouts, errored: 0, avg_reward: null, metric_averages: {}, errors_by_code: {} };
}
