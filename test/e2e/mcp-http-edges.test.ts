/**
 * Misuse at the HTTP and JSON-RPC edges: each request gets the documented refusal, and the server keeps
 * serving afterwards (checked after every case with a health probe and a real tool call).
 */
import { ProtocolError } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { backendAvailable } from '../helpers/backend-gate.js';
import { callTool, connectHttp } from '../helpers/mcp-clients.js';
import { type TestServer, startTestServer } from '../helpers/mcp-test-server.js';
import { MCP_ACCEPT, postJsonRpc, rawHttp } from '../helpers/raw-http.js';
import { cites } from './mcp-requirements.js';

const processBackend = await backendAvailable('process');
const TOKEN = 'edges-test-token';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

describe.skipIf(!processBackend)(`MCP HTTP edge cases, process backend ${cites('HTTP-ALIVE')}`, () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ token: TOKEN });
  });
  afterAll(async () => server?.close());

  afterEach(async () => {
    // The server still serves after every refusal.
    expect((await rawHttp(server.port, { path: '/healthz', headers: { host: `127.0.0.1:${server.port}` } })).status).toBe(200);
    const { client } = await connectHttp(`${server.baseUrl}/mcp/wiki`, { headers: AUTH });
    expect((await callTool(client, 'search_pages', { query: 'nile' })).isError).toBeFalsy();
    await client.close();
  });

  async function openSession(): Promise<string> {
    const response = await postJsonRpc(server.port, '/mcp/python', INITIALIZE, AUTH);
    const sessionId = String(response.headers['mcp-session-id']);
    await postJsonRpc(server.port, '/mcp/python', { jsonrpc: '2.0', method: 'notifications/initialized' }, { ...AUTH, 'mcp-session-id': sessionId });
    return sessionId;
  }

  it(`answers malformed JSON with a JSON-RPC parse error ${cites('ERR-PARSE')}`, async () => {
    const response = await postJsonRpc(server.port, '/mcp/python', '{"jsonrpc": "2.0", "id": 1, "method": ', AUTH);
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
  });

  it(`answers an unknown method with -32601 ${cites('ERR-UNKNOWN-METHOD')}`, async () => {
    const sessionId = await openSession();
    const response = await postJsonRpc(
      server.port,
      '/mcp/python',
      { jsonrpc: '2.0', id: 2, method: 'no/such/method' },
      { ...AUTH, 'mcp-session-id': sessionId },
    );
    expect(response.json).toMatchObject({ id: 2, error: { code: -32601 } });
  });

  it('answers an unknown session id with 404', async () => {
    const response = await postJsonRpc(
      server.port,
      '/mcp/python',
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { ...AUTH, 'mcp-session-id': 'not-a-session' },
    );
    expect(response.status).toBe(404);
  });

  it(`answers an unknown tool with a JSON-RPC error and invalid arguments with a readable isError result ${cites('ERR-UNKNOWN-TOOL', 'ERR-ARGS')}`, async () => {
    const { client } = await connectHttp(`${server.baseUrl}/mcp/python`, { headers: AUTH });
    const unknown = await client.callTool({ name: 'no_such_tool', arguments: {} }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(unknown).toBeInstanceOf(ProtocolError);
    expect((unknown as ProtocolError).code).toBe(-32602);
    const invalid = await callTool(client, 'bash', { command: 42 });
    expect(invalid.isError).toBe(true);
    expect((invalid.structuredContent.error as { code: string }).code).toBe('INVALID_ARGUMENTS');
    await client.close();
  });

  it(`refuses a 10 MB body with 413 and a JSON-RPC error body ${cites('HTTP-413')}`, async () => {
    const huge = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'python', arguments: { code: 'x'.repeat(10 * 1024 * 1024) } } });
    const response = await postJsonRpc(server.port, '/mcp/python', huge, AUTH);
    expect(response.status).toBe(413);
    expect(response.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
  });

  it(`refuses a foreign Host or Origin with 403 ${cites('HTTP-403')}`, async () => {
    const badHost = await postJsonRpc(server.port, '/mcp/python', INITIALIZE, { ...AUTH, host: 'evil.example:80' });
    expect(badHost.status).toBe(403);
    const badOrigin = await postJsonRpc(server.port, '/mcp/python', INITIALIZE, { ...AUTH, origin: 'https://evil.example' });
    expect(badOrigin.status).toBe(403);
    const localOrigin = await postJsonRpc(server.port, '/mcp/python', INITIALIZE, { ...AUTH, origin: `http://localhost:${server.port}` });
    expect(localOrigin.status).toBe(200);
  });

  it(`refuses a missing or wrong bearer token with 401 ${cites('HTTP-401')}`, async () => {
    const missing = await postJsonRpc(server.port, '/mcp/python', INITIALIZE);
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toBe('Bearer');
    const wrong = await postJsonRpc(server.port, '/mcp/python', INITIALIZE, { authorization: 'Bearer nope' });
    expect(wrong.status).toBe(401);
    const sandboxes = await rawHttp(server.port, {
      method: 'POST',
      path: '/v1/sandboxes',
      headers: { host: `127.0.0.1:${server.port}`, 'content-type': 'application/json', accept: MCP_ACCEPT },
      body: '{"env":"python"}',
    });
    expect(sandboxes.status).toBe(401);
  });

  it('answers an unknown environment or path with 404', async () => {
    expect((await postJsonRpc(server.port, '/mcp/nope', INITIALIZE, AUTH)).status).toBe(404);
    expect((await rawHttp(server.port, { path: '/nothing-here', headers: { ...AUTH, host: `127.0.0.1:${server.port}` } })).status).toBe(404);
  });
});
