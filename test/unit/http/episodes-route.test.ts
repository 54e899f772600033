/**
 * The /v1/episodes routes through the real app with inject() (no listen, no sandbox): body validation names the
 * field before the service runs, each EPISODE_ERR_* code maps to its documented status, infrastructure faults keep
 * their code (503 when transient, 500 otherwise) and anything untyped is a plain 500 that leaks nothing, and the
 * open-episode quota answers 429. test/e2e/episodes-api.test.ts covers the same routes with real sandboxes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.js';
import { CorralError } from '../../../src/core/errors.js';
import { buildServer } from '../../../src/http/build-server.js';
import type { EpisodeDescription, EpisodeService } from '../../../src/http/episodes-contract.js';
import { buildToolCatalog } from '../../../src/mcp/tool-catalog.js';
import { smallWikiIndex } from '../../../src/testing/small-wiki-index.js';

const JSON_HEADERS = { 'content-type': 'application/json' };
const EPISODE: EpisodeDescription = {
  id: 'ep_1',
  env: 'wiki-search',
  exampleId: 'q1',
  prompt: [{ role: 'user', content: 'Who?' }],
  tools: [{ type: 'function', function: { name: 'search_pages', description: 'search', parameters: { type: 'object' } } }],
  expiresAtMs: Date.UTC(2030, 0, 1),
};

const scratch = mkdtempSync(join(tmpdir(), 'corral-episodes-route-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

/** Every method fails unless the test gives it; `calls` records which ran, so a refused request provably ran none. */
function fakeService(overrides: Partial<EpisodeService> = {}) {
  const calls: string[] = [];
  const unexpected = (name: string) => () => {
    calls.push(name);
    throw new Error(`${name} must not be called`);
  };
  const open = new Set<string>();
  const service: EpisodeService = {
    create: unexpected('create') as EpisodeService['create'],
    describe: unexpected('describe') as EpisodeService['describe'],
    callTool: unexpected('callTool') as EpisodeService['callTool'],
    handleMcp: unexpected('handleMcp') as EpisodeService['handleMcp'],
    score: unexpected('score') as EpisodeService['score'],
    step: unexpected('step') as EpisodeService['step'],
    conversation: unexpected('conversation') as EpisodeService['conversation'],
    fork: unexpected('fork') as EpisodeService['fork'],
    record: unexpected('record') as EpisodeService['record'],
    release: unexpected('release') as EpisodeService['release'],
    countOwnedBy: () => open.size,
    close: () => Promise.resolve(),
    ...overrides,
  };
  return { service, calls, open };
}

function newApp(service: EpisodeService, server: Record<string, unknown> = {}): FastifyInstance {
  const configFile = join(scratch, `config-${apps.length}-${Date.now()}.json`);
  writeFileSync(configFile, JSON.stringify({ server }));
  const config = loadConfig({ env: {}, flags: { host: '127.0.0.1', port: 0 }, configFile });
  const app = buildServer(config, {
    environments: buildToolCatalog({ wiki: smallWikiIndex() }),
    sandboxSource: { acquire: () => Promise.reject(new CorralError('SBX_ERR_UNAVAILABLE', 'no sandboxes in this test')) },
    episodes: service,
  });
  apps.push(app);
  return app;
}

const send = (app: FastifyInstance, method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown) =>
  app.inject({ method, url, ...(body === undefined ? {} : { headers: JSON_HEADERS, payload: JSON.stringify(body) }) });

describe('/v1/episodes (inject)', () => {
  it('creates an episode: 201 with the prompt, tools, its MCP URL and expiry', async () => {
    const { service } = fakeService({ create: () => Promise.resolve(EPISODE) });
    const response = await send(newApp(service), 'POST', '/v1/episodes', { env: 'wiki-search', example_id: 'q1' });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toEqual({
      id: 'ep_1',
      env: 'wiki-search',
      example_id: 'q1',
      prompt: EPISODE.prompt,
      tools: EPISODE.tools,
      mcpUrl: 'http://localhost:80/v1/episodes/ep_1/mcp',
      expiresAt: '2030-01-01T00:00:00.000Z',
    });
  });

  it('answers 400 naming the field for a body the schema refuses, before the service runs', async () => {
    const { service, calls } = fakeService();
    const app = newApp(service);
    const cases: [string, unknown, string][] = [
      ['/v1/episodes', { example_id: 'q1' }, 'env'],
      ['/v1/episodes', { env: 'wiki-search' }, 'example_id'],
      ['/v1/episodes', { env: 'wiki-search', example_id: 'q1', example: { id: 'x', prompt: 'y' } }, 'example'],
      ['/v1/episodes', { env: 'wiki-search', example_id: 'q1', seed: 1 }, 'seed'],
      ['/v1/episodes', { env: 'wiki-search', example: { id: 'x' } }, 'example.prompt'],
      ['/v1/episodes/ep_1/score', {}, 'completion'],
      ['/v1/episodes/ep_1/score', { completion: [] }, 'completion'],
      ['/v1/episodes/ep_1/score', { completion: 'x', reward: 1 }, 'reward'],
      ['/v1/episodes/ep_1/tools/search_pages', ['not', 'an', 'object'], '(body)'],
    ];
    for (const [url, body, field] of cases) {
      const response = await send(app, 'POST', url, body);
      const reply = response.json<{ error: { code: string; field: string } }>();
      expect([response.statusCode, reply.error.code, reply.error.field], `${url} ${JSON.stringify(body)}`).toEqual([400, 'INVALID_REQUEST', field]);
    }
    expect(calls).toEqual([]);
  });

  it('maps each episode error code to its documented status, with the code and details in the body', async () => {
    const cases: [CorralError, number][] = [
      [new CorralError('EPISODE_ERR_NOT_FOUND', 'no episode ep_1'), 404],
      [new CorralError('EPISODE_ERR_EXPIRED', 'ep_1 expired'), 410],
      [new CorralError('EPISODE_ERR_ALREADY_SCORED', 'ep_1 was scored'), 409],
      [new CorralError('EPISODE_ERR_CLOSED', 'ep_1 was released'), 409],
      [new CorralError('EPISODE_ERR_UNKNOWN_TOOL', 'no tool nope', { details: { available: ['search_pages'] } }), 404],
      [new CorralError('ENV_ERR_INVALID_ARGS', 'env_args.level: expected a number', { details: { field: 'env_args' } }), 400],
    ];
    for (const [error, status] of cases) {
      const { service } = fakeService({ callTool: () => Promise.reject(error) });
      const response = await send(newApp(service), 'POST', '/v1/episodes/ep_1/tools/nope', {});
      expect([response.statusCode, response.json()], error.code).toEqual([status, { error: { code: error.code, message: error.message, ...error.details } }]);
    }
  });

  it('keeps an infrastructure fault typed (503 when transient, 500 otherwise) and an untyped one opaque', async () => {
    const transient = fakeService({ score: () => Promise.reject(new CorralError('SBX_ERR_UNAVAILABLE', 'docker is down')) });
    const unavailable = await send(newApp(transient.service), 'POST', '/v1/episodes/ep_1/score', { completion: 'x' });
    expect([unavailable.statusCode, unavailable.json()]).toEqual([503, { error: { code: 'SBX_ERR_UNAVAILABLE', message: 'docker is down' } }]);

    const final = fakeService({ score: () => Promise.reject(new CorralError('RUBRIC_ERR_FAILED', 'the rubric threw')) });
    const failed = await send(newApp(final.service), 'POST', '/v1/episodes/ep_1/score', { completion: 'x' });
    expect([failed.statusCode, failed.json()]).toEqual([500, { error: { code: 'RUBRIC_ERR_FAILED', message: 'the rubric threw' } }]);

    const untyped = fakeService({ release: () => Promise.reject(new Error('secret internal detail')) });
    const crashed = await send(newApp(untyped.service), 'DELETE', '/v1/episodes/ep_1');
    expect(crashed.statusCode).toBe(500);
    expect(crashed.payload).not.toContain('secret internal detail');
  });

  it('answers 204 for a release and passes the score through', async () => {
    const { service } = fakeService({
      release: () => Promise.resolve(),
      score: () => Promise.resolve({ reward: 1, metrics: { exact: 1 }, answer: 'Ada' }),
      describe: () => EPISODE,
    });
    const app = newApp(service);
    expect((await send(app, 'GET', '/v1/episodes/ep_1')).json()).toMatchObject({ id: 'ep_1', example_id: 'q1' });
    const scored = await send(app, 'POST', '/v1/episodes/ep_1/score', { completion: [{ role: 'assistant', content: 'Ada' }] });
    expect([scored.statusCode, scored.json()]).toEqual([200, { reward: 1, metrics: { exact: 1 }, answer: 'Ada' }]);
    const released = await send(app, 'DELETE', '/v1/episodes/ep_1');
    expect([released.statusCode, released.payload]).toEqual([204, '']);
  });

  it('holds a principal to maxEpisodesPerPrincipal open episodes (429 naming the quota)', async () => {
    const fake = fakeService({
      create: () => {
        fake.open.add('ep_1');
        return Promise.resolve(EPISODE);
      },
    });
    const app = newApp(fake.service, { maxEpisodesPerPrincipal: 1 });
    expect((await send(app, 'POST', '/v1/episodes', { env: 'wiki-search', example_id: 'q1' })).statusCode).toBe(201);
    const refused = await send(app, 'POST', '/v1/episodes', { env: 'wiki-search', example_id: 'q1' });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ error: { code: 'HTTP_ERR_QUOTA_EXCEEDED', quota: 'maxEpisodesPerPrincipal', limit: 1 } });
  });

  it('answers an episode MCP request for an unknown episode with 404 and the code', async () => {
    const { service } = fakeService({ handleMcp: () => Promise.reject(new CorralError('EPISODE_ERR_NOT_FOUND', 'no episode ep_9')) });
    const response = await newApp(service).inject({
      method: 'POST',
      url: '/v1/episodes/ep_9/mcp',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect([response.statusCode, response.json()]).toEqual([404, { error: { code: 'EPISODE_ERR_NOT_FOUND', message: 'no episode ep_9' } }]);
  });
});
