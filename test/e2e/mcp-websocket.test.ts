/**
 * MCP over WebSocket (/ws/<env>[/<id>]): the same JSON-RPC messages as HTTP, one per text frame, many
 * calls in flight on one connection, either protocol era, and the same guards as HTTP.
 */
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendAvailable } from '../helpers/backend-gate.js';
import { type Era, callTool, connectHttp, newClient } from '../helpers/mcp-clients.js';
import { type TestServer, startTestServer } from '../helpers/mcp-test-server.js';
import { WebSocketClientTransport } from '../helpers/websocket-client-transport.js';
import { cites } from './mcp-requirements.js';

const processBackend = await backendAvailable('process');
const TOKEN = 'websocket-test-token';
const AUTH = { authorization: `Bearer ${TOKEN}` };

describe.skipIf(!processBackend)(`MCP over WebSocket, process backend ${cites('WS-SERVE')}`, () => {
  let server: TestServer;
  const wsUrl = (path: string) => `${server.baseUrl.replace(/^http/, 'ws')}${path}`;

  async function connectWebSocket(path: string, era: Era = 'legacy', headers: Record<string, string> = AUTH) {
    const client = newClient(era);
    await client.connect(new WebSocketClientTransport(wsUrl(path), headers));
    return client;
  }

  beforeAll(async () => {
    server = await startTestServer({ token: TOKEN });
  });
  afterAll(async () => server?.close());

  it('serves tools with REPL state and many calls in flight on one connection', async () => {
    const client = await connectWebSocket('/ws/python');
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('python');
    await callTool(client, 'python', { code: 'base = 100' });
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        index % 2 === 0 ? callTool(client, 'python', { code: `base + ${index}` }) : callTool(client, 'bash', { command: `sleep 0.2; echo ${index}` }),
      ),
    );
    results.forEach((result, index) => {
      if (index % 2 === 0) expect(result.structuredContent.value).toBe(String(100 + index));
      else expect(result.structuredContent.stdout).toBe(`${index}\n`);
    });
    expect(leased(server)).toBe(1);
    await client.close();
    await expect.poll(() => leased(server), { timeout: 5_000 }).toBe(0);
  });

  it('serves 2026-era clients and shares a handle with HTTP clients', async () => {
    const created = (await (
      await fetch(`${server.baseUrl}/v1/sandboxes`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body: '{"env":"python"}' })
    ).json()) as { id: string; mcpUrl: string; wsUrl: string };
    expect(created.wsUrl).toBe(wsUrl(`/ws/python/${created.id}`));
    const overWebSocket = await connectWebSocket(`/ws/python/${created.id}`, 'modern');
    expect(overWebSocket.getProtocolEra()).toBe('modern');
    await callTool(overWebSocket, 'python', { code: 'shared = "yes"' });
    const overHttp = await connectHttp(created.mcpUrl, { era: 'modern', headers: AUTH });
    expect((await callTool(overHttp.client, 'python', { code: 'shared' })).structuredContent.value).toBe("'yes'");
    await overWebSocket.close();
    await overHttp.client.close();
    expect(leased(server)).toBe(1); // the handle, not the connection, owns the sandbox
    await fetch(`${server.baseUrl}/v1/sandboxes/${created.id}`, { method: 'DELETE', headers: AUTH });
    await expect.poll(() => leased(server), { timeout: 5_000 }).toBe(0);
  });

  it('refuses a missing token, a foreign Origin and an unknown handle before the handshake', async () => {
    await expect(connectWebSocket('/ws/python', 'legacy', {})).rejects.toThrow('HTTP 401');
    await expect(connectWebSocket('/ws/python', 'legacy', { ...AUTH, origin: 'https://evil.example' })).rejects.toThrow('HTTP 403');
    await expect(connectWebSocket('/ws/python/sbx_000000000000')).rejects.toThrow('HTTP 404');
    await expect(connectWebSocket('/ws/nope')).rejects.toThrow('HTTP 404');
  });

  it('answers a frame that is not JSON with a parse error and keeps the connection', async () => {
    const socket = new WebSocket(wsUrl('/ws/wiki'), { headers: AUTH });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const replies: unknown[] = [];
    socket.on('message', (data) => replies.push(JSON.parse(data.toString())));
    socket.send('this is not json');
    await expect.poll(() => replies.length).toBe(1);
    expect(replies[0]).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    socket.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    );
    await expect.poll(() => replies.length).toBe(2);
    expect(replies[1]).toMatchObject({ id: 1, result: { serverInfo: { name: 'corral' } } });
    socket.close();
  });
});

function leased(server: TestServer): number {
  return server.pool.stats().reduce((sum, bucket) => sum + bucket.leased, 0);
}
