/**
 * The tools/call fast path (src/http/fast-tool-call.ts): a plain JSON-RPC tools/call on an existing 2025 session
 * or on a handle is answered as application/json without the SDK transport, with the same results, the same error routing and
 * the same session checks; anything unusual (progress tokens) still goes through the SDK and answers as SSE.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendAvailable } from '../helpers/backend-gate.js';
import { type TestServer, startTestServer } from '../helpers/mcp-test-server.js';
import { postJsonRpc } from '../helpers/raw-http.js';
import { cites } from './mcp-requirements.js';

const processBackend = await backendAvailable('process');
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const VERSION = { 'mcp-protocol-version': '2025-11-25' };

describe.skipIf(!processBackend)(`tools/call fast path ${cites('HTTP-FAST-CALL')}`, () => {
  let server: TestServer;
  let sessionId: string;
  const call = (id: number, params: Record<string, unknown>, headers: Record<string, string> = {}) =>
    postJsonRpc(server.port, '/mcp/python', { jsonrpc: '2.0', id, method: 'tools/call', params }, { ...VERSION, 'mcp-session-id': sessionId, ...headers });

  beforeAll(async () => {
    server = await startTestServer();
    const opened = await postJsonRpc(server.port, '/mcp/python', INITIALIZE);
    sessionId = String(opened.headers['mcp-session-id']);
    await postJsonRpc(server.port, '/mcp/python', { jsonrpc: '2.0', method: 'notifications/initialized' }, { ...VERSION, 'mcp-session-id': sessionId });
  });
  afterAll(async () => server?.close());

  it('answers a tools/call as application/json with structured content, keeping REPL state in the session', async () => {
    const first = await call(2, { name: 'python', arguments: { code: 'x = 20' } });
    expect(first.headers['content-type']).toContain('application/json');
    expect(first.headers['mcp-session-id']).toBe(sessionId);
    const second = await call(3, { name: 'python', arguments: { code: 'x * 2 + 2' } });
    expect(second.json).toMatchObject({ jsonrpc: '2.0', id: 3, result: { structuredContent: { value: '42' } } });
  });

  it('routes errors as the SDK path does: tool failures are isError results, unknown tools -32602', async () => {
    const failed = await call(4, { name: 'bash', arguments: { command: 'exit 3' } });
    expect(failed.json).toMatchObject({ id: 4, result: { isError: true, structuredContent: { exit_code: 3 } } });
    const invalid = await call(5, { name: 'bash', arguments: { command: 42 } });
    expect(invalid.json).toMatchObject({ id: 5, result: { isError: true } });
    const unknown = await call(6, { name: 'no_such_tool', arguments: {} });
    expect(unknown.json).toMatchObject({ id: 6, error: { code: -32602 } });
  });

  it('refuses an unknown session with 404, as the SDK path does', async () => {
    const response = await postJsonRpc(
      server.port,
      '/mcp/python',
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'bash', arguments: { command: 'true' } } },
      { ...VERSION, 'mcp-session-id': 'not-a-session' },
    );
    expect(response.status).toBe(404);
  });

  it('answers a plain tools/call on a handle (/mcp/<env>/<id>) as application/json, on the same sandbox as the SDK path', async () => {
    const created = await fetch(`${server.baseUrl}/v1/sandboxes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ env: 'python' }),
    });
    const { id } = (await created.json()) as { id: string };
    expect(id).toMatch(/^hdl_/); // a handle, not a backend sandbox (those are sbx_)
    const onHandle = (callId: number, params: Record<string, unknown>) =>
      postJsonRpc(server.port, `/mcp/python/${id}`, { jsonrpc: '2.0', id: callId, method: 'tools/call', params }, VERSION);
    // A progress token keeps this call on the SDK transport (an SSE stream); the plain call after it takes the fast path.
    const viaSdk = await onHandle(9, { name: 'python', arguments: { code: 'y = 41' }, _meta: { progressToken: 'p2' } });
    expect(viaSdk.headers['content-type']).toContain('text/event-stream');
    const fast = await onHandle(10, { name: 'python', arguments: { code: 'y += 1\ny' } });
    expect(fast.headers['content-type']).toContain('application/json');
    expect(fast.headers['mcp-session-id']).toBeUndefined();
    expect(fast.json).toMatchObject({ jsonrpc: '2.0', id: 10, result: { structuredContent: { value: '42' } } });
    // Answered once: a call the fast path answered must not run again on the SDK path.
    const after = await onHandle(13, { name: 'python', arguments: { code: 'y' }, _meta: { progressToken: 'p3' } });
    expect(after.json).toMatchObject({ id: 13, result: { structuredContent: { value: '42' } } });
    const unknown = await onHandle(11, { name: 'no_such_tool', arguments: {} });
    expect(unknown.json).toMatchObject({ id: 11, error: { code: -32602 } });
    const missing = await postJsonRpc(
      server.port,
      '/mcp/python/hdl_000000000000',
      { jsonrpc: '2.0', id: 12, method: 'tools/call', params: { name: 'bash', arguments: { command: 'true' } } },
      VERSION,
    );
    expect(missing.status).toBe(404);
  });

  it('leaves calls with a progress token to the SDK transport (answered as an SSE stream)', async () => {
    const response = await call(8, { name: 'bash', arguments: { command: 'echo hi' }, _meta: { progressToken: 'p1' } });
    expect(response.headers['content-type']).toContain('text/event-stream');
    expect(response.json).toMatchObject({ id: 8, result: { structuredContent: { stdout: 'hi\n' } } });
  });
});
