/**
 * /v1/sandboxes through the real app with inject() (no listen, no sandbox: the handle leases one only on its first
 * call): a create body the schema refuses names its fields, an unknown environment lists the served ones, a TTL
 * outside the server's bounds says both bounds, another client's or a missing handle is the same 404, and the
 * handle quota answers 429. test/e2e/sandbox-api-handles.test.ts covers the same routes with real sandboxes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.js';
import { CorralError } from '../../../src/core/errors.js';
import { buildServer } from '../../../src/http/build-server.js';
import { MIN_HANDLE_TTL_MS } from '../../../src/http/sandbox-request-bodies.js';
import { buildToolCatalog } from '../../../src/mcp/tool-catalog.js';
import { smallWikiIndex } from '../../../src/testing/small-wiki-index.js';

const IDLE_TTL_MS = 60_000;
const scratch = mkdtempSync(join(tmpdir(), 'corral-sandbox-routes-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

function newApp(server: Record<string, unknown> = {}): FastifyInstance {
  const configFile = join(scratch, `config-${apps.length}-${Date.now()}.json`);
  writeFileSync(configFile, JSON.stringify({ server: { idleTtlMs: IDLE_TTL_MS, ...server } }));
  const config = loadConfig({ env: {}, flags: { host: '127.0.0.1', port: 0 }, configFile });
  const app = buildServer(config, {
    environments: buildToolCatalog({ wiki: smallWikiIndex() }),
    sandboxSource: { acquire: () => Promise.reject(new CorralError('SBX_ERR_UNAVAILABLE', 'no sandboxes in this test')) },
    // Principals by header, so one test can be two clients.
    resolvePrincipal: (headers) => String(headers['x-client'] ?? 'alice'),
  });
  apps.push(app);
  return app;
}

const create = (app: FastifyInstance, body: unknown, client = 'alice') =>
  app.inject({ method: 'POST', url: '/v1/sandboxes', headers: { 'content-type': 'application/json', 'x-client': client }, payload: JSON.stringify(body) });

describe('/v1/sandboxes (inject)', () => {
  it('names every field a create body gets wrong, with the environments it could have named', async () => {
    const app = newApp();
    const cases: [unknown, string[]][] = [
      [{}, ['env']],
      [{ env: 'python', ttl: 5 }, ['ttl']],
      [{ env: 'python', ttl_ms: 1.5 }, ['ttl_ms']],
      [{ env: 'python', env_vars: { 'NOT-A-NAME': 'x' } }, ['env_vars.NOT-A-NAME']],
      [{ env: 'python', files: [{ path: '', content: 'x' }] }, ['files.0.path']],
      [{ env: 'python', files: [{ path: 'a', content: 'x', encoding: 'hex' }] }, ['files.0.encoding']],
    ];
    for (const [body, fields] of cases) {
      const response = await create(app, body);
      expect([response.statusCode, response.json()], JSON.stringify(body)).toEqual([
        400,
        { error: expect.objectContaining({ code: 'INVALID_BODY', fields, available: expect.arrayContaining(['python', 'wiki']) }) },
      ]);
    }
  });

  it('answers a create whose files cannot be written because no sandbox comes with the code, 503 (transient: retry)', async () => {
    const response = await create(newApp(), { env: 'python', files: [{ path: 'a.txt', content: 'x' }] });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toEqual({ error: { code: 'SBX_ERR_UNAVAILABLE', message: 'no sandboxes in this test', transient: true } });
  });

  it('refuses an unknown environment with the list of served ones', async () => {
    const response = await create(newApp(), { env: 'cobol' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      error: expect.objectContaining({ code: 'UNKNOWN_ENVIRONMENT', fields: ['env'], available: expect.arrayContaining(['python']) }),
    });
  });

  it("keeps ttl_ms within the server's bounds and says both", async () => {
    const app = newApp();
    for (const ttl of [MIN_HANDLE_TTL_MS - 1, IDLE_TTL_MS + 1]) {
      const response = await create(app, { env: 'python', ttl_ms: ttl });
      expect([response.statusCode, response.json()]).toEqual([
        400,
        { error: expect.objectContaining({ code: 'INVALID_TTL', fields: ['ttl_ms'], minTtlMs: MIN_HANDLE_TTL_MS, maxTtlMs: IDLE_TTL_MS }) },
      ]);
    }
    expect((await create(app, { env: 'python', ttl_ms: IDLE_TTL_MS })).statusCode).toBe(201);
  });

  it("creates a handle with its URLs, lists it for its owner only, and answers another client's id as a missing one", async () => {
    const app = newApp();
    const created = await create(app, { env: 'python', ttl_ms: 5_000 });
    expect(created.statusCode).toBe(201);
    const handle = created.json<{ id: string; env: string; mcpUrl: string; wsUrl: string; expiresAt: string }>();
    expect(handle).toMatchObject({ env: 'python', mcpUrl: `http://localhost:80/mcp/python/${handle.id}`, wsUrl: `ws://localhost:80/ws/python/${handle.id}` });
    expect(Number.isNaN(Date.parse(handle.expiresAt))).toBe(false);

    const as = (client: string) => ({ 'x-client': client });
    const list = (client: string) => app.inject({ method: 'GET', url: '/v1/sandboxes', headers: as(client) }).then((response) => response.json());
    expect(await list('alice')).toEqual({ sandboxes: [handle] });
    expect(await list('mallory')).toEqual({ sandboxes: [] });

    for (const [method, client, id] of [
      ['GET', 'mallory', handle.id],
      ['DELETE', 'mallory', handle.id],
      ['GET', 'alice', 'sbx_nosuch'],
    ] as const) {
      const response = await app.inject({ method, url: `/v1/sandboxes/${id}`, headers: as(client) });
      expect([response.statusCode, response.json<{ error: { code: string } }>().error.code], `${method} ${client} ${id}`).toEqual([404, 'SANDBOX_NOT_FOUND']);
    }
    const deleted = await app.inject({ method: 'DELETE', url: `/v1/sandboxes/${handle.id}`, headers: as('alice') });
    expect(deleted.statusCode).toBe(204);
    expect(await list('alice')).toEqual({ sandboxes: [] });
  });

  it('holds a client to maxHandlesPerPrincipal (429 naming the quota); another client is unaffected', async () => {
    const app = newApp({ maxHandlesPerPrincipal: 1 });
    expect((await create(app, { env: 'python' })).statusCode).toBe(201);
    const refused = await create(app, { env: 'python' });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ error: { code: 'HTTP_ERR_QUOTA_EXCEEDED', quota: 'maxHandlesPerPrincipal', limit: 1 } });
    expect((await create(app, { env: 'python' }, 'bob')).statusCode).toBe(201);
  });
});
