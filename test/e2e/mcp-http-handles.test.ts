/**
 * Sandbox handles: state keyed by the id in the URL path (/mcp/<env>/<id>), not by MCP session, so
 * sessionless 2026-era clients keep one sandbox across connections, and 2025-era clients share it too.
 * Another client's id is indistinguishable from one that never existed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendAvailable } from '../helpers/backend-gate.js';
import { callTool, connectHttp } from '../helpers/mcp-clients.js';
import { type TestServer, startTestServer } from '../helpers/mcp-test-server.js';
import { postJsonRpc, rawHttp } from '../helpers/raw-http.js';
import { cites } from './mcp-requirements.js';

const processBackend = await backendAvailable('process');
const TOKEN = 'handles-test-token';

describe.skipIf(!processBackend)('sandbox handles over Streamable HTTP, process backend', () => {
  let server: TestServer;
  const headersFor = (client: string) => ({ authorization: `Bearer ${TOKEN}`, 'x-test-client': client });

  beforeAll(async () => {
    server = await startTestServer({ token: TOKEN, resolvePrincipal: (headers) => String(headers['x-test-client'] ?? 'nobody') });
  });
  afterAll(async () => server?.close());

  async function createHandle(client: string, env = 'python') {
    const response = await fetch(`${server.baseUrl}/v1/sandboxes`, {
      method: 'POST',
      headers: { ...headersFor(client), 'content-type': 'application/json' },
      body: JSON.stringify({ env }),
    });
    return { status: response.status, body: (await response.json()) as { id: string; mcpUrl: string; wsUrl: string; expiresAt: string } };
  }

  it(`creates a handle whose sandbox keeps state across sessionless 2026-era clients and 2025-era clients ${cites('HANDLE-STATE')}`, async () => {
    const created = await createHandle('alice');
    expect(created.status).toBe(201);
    expect(created.body.mcpUrl).toBe(`${server.baseUrl}/mcp/python/${created.body.id}`);
    expect(Date.parse(created.body.expiresAt)).toBeGreaterThan(Date.now());
    expect(leased(server)).toBe(0); // lazily: nothing is leased before the first tool call

    const modern = await connectHttp(created.body.mcpUrl, { era: 'modern', headers: headersFor('alice') });
    expect(modern.client.getProtocolEra()).toBe('modern');
    expect(modern.transport.sessionId).toBeUndefined();
    await callTool(modern.client, 'python', { code: 'counter = 41' });
    await callTool(modern.client, 'write_file', { path: 'note.txt', content: 'kept' });
    await modern.client.close();

    const again = await connectHttp(created.body.mcpUrl, { era: 'modern', headers: headersFor('alice') });
    expect((await callTool(again.client, 'python', { code: 'counter + 1' })).structuredContent.value).toBe('42');
    await again.client.close();

    const legacy = await connectHttp(created.body.mcpUrl, { era: 'legacy', headers: headersFor('alice') });
    expect(legacy.client.getProtocolEra()).toBe('legacy');
    expect((await callTool(legacy.client, 'read_file', { path: 'note.txt' })).structuredContent.content).toBe('kept');
    await legacy.client.close();
    expect(leased(server)).toBe(1);

    const removed = await fetch(`${server.baseUrl}/v1/sandboxes/${created.body.id}`, { method: 'DELETE', headers: headersFor('alice') });
    expect(removed.status).toBe(204);
    await expect.poll(() => leased(server), { timeout: 5_000 }).toBe(0);
    await expect(connectHttp(created.body.mcpUrl, { era: 'modern', headers: headersFor('alice') })).rejects.toThrow();
  });

  it(`answers 404 for another client's sandbox id, on MCP and on the handle API ${cites('HANDLE-OWNER')}`, async () => {
    const created = await createHandle('alice');
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'mallory', version: '1' } },
    };
    const path = `/mcp/python/${created.body.id}`;
    expect((await postJsonRpc(server.port, path, initialize, headersFor('mallory'))).status).toBe(404);
    expect((await rawHttp(server.port, { path: `/v1/sandboxes/${created.body.id}`, headers: headersFor('mallory') })).status).toBe(404);
    expect((await rawHttp(server.port, { method: 'DELETE', path: `/v1/sandboxes/${created.body.id}`, headers: headersFor('mallory') })).status).toBe(404);
    // The rightful owner is unaffected.
    expect((await postJsonRpc(server.port, path, initialize, headersFor('alice'))).status).toBe(200);
    expect((await postJsonRpc(server.port, `/mcp/js/${created.body.id}`, initialize, headersFor('alice'))).status).toBe(404);
    expect((await rawHttp(server.port, { method: 'DELETE', path: `/v1/sandboxes/${created.body.id}`, headers: headersFor('alice') })).status).toBe(204);
  });

  it('rejects an unknown environment and a malformed body', async () => {
    expect((await createHandle('alice', 'nope')).status).toBe(400);
    const malformed = await rawHttp(server.port, {
      method: 'POST',
      path: '/v1/sandboxes',
      headers: { ...headersFor('alice'), 'content-type': 'application/json' },
      body: '{"env":',
    });
    expect(malformed.status).toBe(400);
  });

  it(`serves sessionless 2026-era clients on /mcp/<env> with a sandbox per request, released after it ${cites('MODERN-ENV')}`, async () => {
    const modern = await connectHttp(`${server.baseUrl}/mcp/python`, { era: 'modern', headers: headersFor('alice') });
    const result = await callTool(modern.client, 'bash', { command: 'echo $((6 * 7))' });
    expect(result.structuredContent.stdout).toBe('42\n');
    await expect.poll(() => leased(server), { timeout: 5_000 }).toBe(0);
    await modern.client.close();
  });
});

function leased(server: TestServer): number {
  return server.pool.stats().reduce((sum, bucket) => sum + bucket.leased, 0);
}
