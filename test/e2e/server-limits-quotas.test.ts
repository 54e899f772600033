/**
 * Per-principal quotas (corral issue 7): MCP sessions, sandbox handles and rollout requests in flight. Past
 * a quota the server answers 429 HTTP_ERR_QUOTA_EXCEEDED (JSON-RPC body on /mcp, {error} on /v1), other
 * principals are unaffected, and closing what was held frees the quota.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { principalFromBearerToken } from '../../src/http/principal.js';
import type { RolloutService } from '../../src/http/rollouts-contract.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { callTool, connectHttp } from '../helpers/mcp-clients.js';
import { postJsonRpc, rawHttp } from '../helpers/raw-http.js';
import { type LimitsServer, startLimitsServer } from './server-limits-server.js';

const processBackend = await backendAvailable('process');
const TOKEN = 'quota-token';
const OTHER_TOKEN = 'other-token';
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'quota', version: '1' } },
};

/** Rollouts that run until their request is cancelled. */
const endlessRollouts: RolloutService = {
  prepare: async () => ({
    env: 'fake',
    model: 'fake',
    numExamples: 1,
    rolloutsPerExample: 1,
    run: ({ abortSignal }: { abortSignal: AbortSignal }) =>
      new Promise((resolve) =>
        abortSignal.addEventListener('abort', () => resolve({ rollouts: 0, errored: 0, avg_reward: null, metric_averages: {}, errors_by_code: {} } as never)),
      ),
  }),
} as unknown as RolloutService;

describe.skipIf(!processBackend)('server limits: per-principal quotas', () => {
  let server: LimitsServer;
  const auth = (token: string) => ({ authorization: `Bearer ${token}` });

  beforeAll(async () => {
    server = await startLimitsServer(
      { maxSessionsPerPrincipal: 2, maxHandlesPerPrincipal: 2, maxRolloutRequestsPerPrincipal: 1, maxLeasedSandboxesPerPrincipal: 1 },
      // Principals by bearer value, as a token-checking server has them: the quotas, not principal derivation, are under test here.
      { rollouts: endlessRollouts, resolvePrincipal: principalFromBearerToken },
    );
  });
  afterAll(async () => server?.close());

  it('refuses a third MCP session with 429 and a JSON-RPC body, and frees the quota when a session ends', async () => {
    const open = (token: string) => postJsonRpc(server.port, '/mcp/python', INITIALIZE, auth(token));
    const first = await open(TOKEN);
    await open(TOKEN);
    const refused = await open(TOKEN);
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, data: { code: 'HTTP_ERR_QUOTA_EXCEEDED', quota: 'maxSessionsPerPrincipal', limit: 2 } },
    });
    expect((await open(OTHER_TOKEN)).status).toBe(200);
    const ended = await rawHttp(server.port, {
      method: 'DELETE',
      path: '/mcp/python',
      headers: { host: `127.0.0.1:${server.port}`, ...auth(TOKEN), 'mcp-session-id': String(first.headers['mcp-session-id']) },
    });
    expect(ended.status).toBe(200);
    expect((await open(TOKEN)).status).toBe(200);
  });

  it('refuses a third sandbox handle with 429 HTTP_ERR_QUOTA_EXCEEDED, and frees the quota on DELETE', async () => {
    const create = (token: string) =>
      fetch(`${server.baseUrl}/v1/sandboxes`, { method: 'POST', headers: { ...auth(token), 'content-type': 'application/json' }, body: '{"env":"python"}' });
    const first = (await (await create(TOKEN)).json()) as { id: string };
    expect((await create(TOKEN)).status).toBe(201);
    const refused = await create(TOKEN);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ error: { code: 'HTTP_ERR_QUOTA_EXCEEDED', quota: 'maxHandlesPerPrincipal', limit: 2 } });
    expect((await create(OTHER_TOKEN)).status).toBe(201);
    expect((await fetch(`${server.baseUrl}/v1/sandboxes/${first.id}`, { method: 'DELETE', headers: auth(TOKEN) })).status).toBe(204);
    expect((await create(TOKEN)).status).toBe(201);
  });

  it('refuses a second rollout request in flight with 429, and accepts one again after the first ends', async () => {
    const body = JSON.stringify({ env: 'wiki-search', n: 1, model: { base_url: 'http://127.0.0.1:1/v1', model: 'm' } });
    const firstAbort = new AbortController();
    const first = await fetch(`${server.baseUrl}/v1/rollouts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      signal: firstAbort.signal,
    });
    expect(first.status).toBe(200);
    const refused = await fetch(`${server.baseUrl}/v1/rollouts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ error: { code: 'HTTP_ERR_QUOTA_EXCEEDED', quota: 'maxRolloutRequestsPerPrincipal', limit: 1 } });
    firstAbort.abort();
    await expect
      .poll(
        async () => {
          const again = await fetch(`${server.baseUrl}/v1/rollouts`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body,
            signal: AbortSignal.timeout(2_000),
          }).catch(() => undefined);
          const status = again?.status;
          await again?.body?.cancel().catch(() => undefined);
          return status;
        },
        { timeout: 10_000 },
      )
      .toBe(200);
  });

  it('refuses a second leased sandbox: the tool call that would lease it fails with HTTP_ERR_QUOTA_EXCEEDED, and works once the first is released', async () => {
    const create = async () =>
      (await (
        await fetch(`${server.baseUrl}/v1/sandboxes`, {
          method: 'POST',
          headers: { ...auth('lease-token'), 'content-type': 'application/json' },
          body: '{"env":"python"}',
        })
      ).json()) as { id: string; mcpUrl: string };
    const first = await create();
    const second = await create();
    const firstClient = (await connectHttp(first.mcpUrl, { era: 'modern', headers: auth('lease-token') })).client;
    expect((await callTool(firstClient, 'python', { code: '1 + 1' })).structuredContent.value).toBe('2');
    const secondClient = (await connectHttp(second.mcpUrl, { era: 'modern', headers: auth('lease-token') })).client;
    const refused = await secondClient.callTool({ name: 'python', arguments: { code: '2 + 2' } }).then(
      (result) => JSON.stringify(result),
      (error: unknown) => JSON.stringify({ message: (error as Error).message, data: (error as { data?: unknown }).data }),
    );
    expect(refused).toContain('HTTP_ERR_QUOTA_EXCEEDED');
    expect((await fetch(`${server.baseUrl}/v1/sandboxes/${first.id}`, { method: 'DELETE', headers: auth('lease-token') })).status).toBe(204);
    expect((await callTool(secondClient, 'python', { code: '2 + 2' })).structuredContent.value).toBe('4');
    await firstClient.close();
    await secondClient.close();
  });
});
