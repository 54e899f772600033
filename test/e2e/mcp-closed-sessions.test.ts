/**
 * Issue 21: under 1,000 concurrent sessions one 2025-era (legacy) session was left after every client had closed:
 * the client's closing DELETE died on a connection the server evicted at its connection cap, and the session lived
 * until its idle TTL. A real `corral serve` (idle TTL ten minutes), 1,000 clients in waves of 200: each opens a
 * session, calls a tool and closes. Three in four are SDK clients that DELETE their session; one in four opens its
 * standalone GET stream by hand and closes it without a DELETE, as when the DELETE dies on the way. The server's
 * session count (/metrics) must come back to 0 long before the TTL.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { callTool, connectHttp } from '../helpers/mcp-clients.js';
import { type ServeProcess, startServe } from './serve-cli-process.js';

const SESSIONS = 1_000;
const WAVE = 200;

let serve: ServeProcess;
beforeAll(async () => {
  serve = startServe(['--port', '0', '--backend', 'process', '--idle-ttl-ms', '600000']);
  await vi.waitFor(() => expect(serve.address()).toBeDefined(), { timeout: 60_000, interval: 200 });
}, 90_000);
afterAll(() => serve?.child.kill('SIGTERM'));

async function legacySessions(): Promise<number> {
  const metrics = await (await fetch(`${serve.address()}/metrics`)).text();
  return Number(/^corral_mcp_active\{kind="legacySessions"\} (\d+)$/m.exec(metrics)?.[1] ?? NaN);
}

describe('closed MCP sessions', () => {
  it(`leaves none of ${SESSIONS} sessions behind when their clients close, DELETE or not`, { timeout: 300_000 }, async () => {
    for (let start = 0; start < SESSIONS; start += WAVE) {
      await Promise.all(
        Array.from({ length: WAVE }, async (_, offset) => {
          const index = start + offset;
          if (index % 4 === 0) return closeWithoutDelete(`${serve.address()}/mcp/wiki`, index);
          const { client, transport } = await connectHttp(`${serve.address()}/mcp/wiki`);
          expect((await callTool(client, 'search_pages', { query: `river ${index}` })).isError).toBeFalsy();
          await transport.terminateSession();
          await client.close();
        }),
      );
    }
    await expect.poll(legacySessions, { timeout: 60_000, interval: 500 }).toBe(0);
  });
});

const JSON_AND_STREAM = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** A 2025-era session by hand: initialize, the standalone GET stream, one call, then the stream dropped and no DELETE. */
async function closeWithoutDelete(url: string, index: number): Promise<void> {
  const post = (body: object, sessionId?: string) =>
    fetch(url, {
      method: 'POST',
      headers: { ...JSON_AND_STREAM, ...(sessionId ? { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' } : {}) },
      body: JSON.stringify(body),
    });
  const initialized = await post({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'closing-client', version: '1.0.0' } },
  });
  const sessionId = initialized.headers.get('mcp-session-id')!;
  expect(sessionId).toBeTruthy();
  await initialized.text();
  await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId)).text();
  const stream = new AbortController();
  const opened = await fetch(url, {
    method: 'GET',
    headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' },
    signal: stream.signal,
  });
  expect(opened.status).toBe(200);
  const called = await post(
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search_pages', arguments: { query: `river ${index}` } } },
    sessionId,
  );
  expect(await called.text()).toContain('"result"');
  stream.abort();
}
