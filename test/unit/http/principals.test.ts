/**
 * Who a principal is (issue 20): on a tokenless server a client must not be able to mint principals, so a bearer
 * value of its choosing does not buy it fresh quotas; the remote address (every loopback address one) does. With a
 * token, every holder of the one accepted token is one principal. Checked through the real app with inject().
 */
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.js';
import { CorralError } from '../../../src/core/errors.js';
import { buildServer } from '../../../src/http/build-server.js';
import { buildToolCatalog } from '../../../src/mcp/tool-catalog.js';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

function appWith(server: { token?: string; maxHandlesPerPrincipal: number }): FastifyInstance {
  const base = loadConfig({ env: {}, flags: { host: '127.0.0.1', port: 0, ...(server.token ? { token: server.token } : {}) } });
  const app = buildServer(
    { ...base, server: { ...base.server, maxHandlesPerPrincipal: server.maxHandlesPerPrincipal } },
    {
      environments: buildToolCatalog(),
      // Creating a handle leases nothing; a lease here would be a bug in the test's premise.
      sandboxSource: { acquire: () => Promise.reject(new CorralError('SBX_ERR_UNAVAILABLE', 'no sandboxes in this test')) },
    },
  );
  apps.push(app);
  return app;
}

const createHandle = (app: FastifyInstance, options: { bearer?: string; remoteAddress?: string }) =>
  app.inject({
    method: 'POST',
    url: '/v1/sandboxes',
    remoteAddress: options.remoteAddress ?? '127.0.0.1',
    headers: { 'content-type': 'application/json', ...(options.bearer ? { authorization: `Bearer ${options.bearer}` } : {}) },
    payload: { env: 'python' },
  });

describe('principals', () => {
  it('on a tokenless server, made-up bearer values share their address quota', async () => {
    const app = appWith({ maxHandlesPerPrincipal: 2 });
    expect((await createHandle(app, { bearer: 'made-up-1' })).statusCode).toBe(201);
    expect((await createHandle(app, { bearer: 'made-up-2' })).statusCode).toBe(201);
    const third = await createHandle(app, { bearer: 'made-up-3' });
    expect(third.statusCode).toBe(429);
    expect(third.json()).toMatchObject({ error: { code: 'HTTP_ERR_QUOTA_EXCEEDED', quota: 'maxHandlesPerPrincipal' } });
    // No bearer at all: the same principal again.
    expect((await createHandle(app, {})).statusCode).toBe(429);
  });

  it('on a tokenless server, another remote address is another principal, and loopback addresses are one', async () => {
    const app = appWith({ maxHandlesPerPrincipal: 1 });
    expect((await createHandle(app, { remoteAddress: '127.0.0.1' })).statusCode).toBe(201);
    expect((await createHandle(app, { remoteAddress: '::1' })).statusCode).toBe(429);
    expect((await createHandle(app, { remoteAddress: '10.1.2.3' })).statusCode).toBe(201);
    expect((await createHandle(app, { remoteAddress: '::ffff:10.1.2.3' })).statusCode).toBe(429);
  });

  it('a handle made with one made-up bearer value is visible without it (the bearer is not the owner)', async () => {
    const app = appWith({ maxHandlesPerPrincipal: 4 });
    const { id } = (await createHandle(app, { bearer: 'one' })).json<{ id: string }>();
    const seen = await app.inject({ method: 'GET', url: `/v1/sandboxes/${id}`, remoteAddress: '127.0.0.1', headers: { authorization: 'Bearer two' } });
    expect(seen.statusCode).toBe(200);
    const stranger = await app.inject({ method: 'GET', url: `/v1/sandboxes/${id}`, remoteAddress: '10.9.9.9' });
    expect(stranger.statusCode).toBe(404);
  });

  it('with a token, every holder of the token is one principal whatever its address', async () => {
    const app = appWith({ token: 'the-token', maxHandlesPerPrincipal: 1 });
    expect((await createHandle(app, { bearer: 'the-token', remoteAddress: '10.0.0.1' })).statusCode).toBe(201);
    expect((await createHandle(app, { bearer: 'the-token', remoteAddress: '10.0.0.2' })).statusCode).toBe(429);
    expect((await createHandle(app, { bearer: 'another', remoteAddress: '10.0.0.3' })).statusCode).toBe(401);
  });
});
