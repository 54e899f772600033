/**
 * Hostile request bodies (issue 21): a compressed body is held to the body limit once decompressed (413 with a
 * JSON-RPC body, never a misleading parse error), an encoding the server cannot decode is 415, and JSON nested
 * deeper than the server reads is a typed 400 on every route that parses JSON (MCP over HTTP and WebSocket, /v1),
 * answered before anything walks it. Through the real app: inject() for HTTP, a listening server for WebSocket.
 */
import { gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import WebSocket from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.js';
import { CorralError } from '../../../src/core/errors.js';
import { buildServer } from '../../../src/http/build-server.js';
import { MAX_JSON_NESTING_DEPTH } from '../../../src/mcp/json-nesting.js';
import { buildToolCatalog } from '../../../src/mcp/tool-catalog.js';
import { smallWikiIndex } from '../../../src/testing/small-wiki-index.js';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

function newApp(): FastifyInstance {
  const config = loadConfig({ env: {}, flags: { host: '127.0.0.1', port: 0 } });
  const app = buildServer(config, {
    environments: buildToolCatalog({ wiki: smallWikiIndex() }),
    sandboxSource: { acquire: () => Promise.reject(new CorralError('SBX_ERR_UNAVAILABLE', 'no sandboxes in this test')) },
  });
  apps.push(app);
  return app;
}

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const MODERN_HEADERS = { ...MCP_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'search_pages' };
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bodies', version: '1' } },
};

/** A 2026-era tools/call whose _meta carries `depth` nested arrays (2 bytes a level: 1,000,000 levels fit the limit). */
function deeplyNestedCall(depth: number): string {
  const nested = `${'['.repeat(depth)}${']'.repeat(depth)}`;
  const envelope = '"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}';
  return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search_pages","arguments":{"query":"x"},"_meta":{${envelope},"deep":${nested}}}}`;
}

describe('request bodies', () => {
  it('a gzip body that decompresses past the body limit is 413 with a JSON-RPC body', async () => {
    const app = newApp();
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'python', arguments: { code: 'x'.repeat(5_000_000) } } };
    const response = await app.inject({
      method: 'POST',
      url: '/mcp/python',
      headers: { ...MCP_HEADERS, 'content-encoding': 'gzip' },
      payload: gzipSync(JSON.stringify(call)),
    });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.stringContaining('too large') } });
  });

  it('a small gzip body is decoded and served', async () => {
    const app = newApp();
    const response = await app.inject({
      method: 'POST',
      url: '/mcp/python',
      headers: { ...MCP_HEADERS, 'content-encoding': 'gzip' },
      payload: gzipSync(JSON.stringify(INITIALIZE)),
    });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('"protocolVersion":"2025-11-25"');
  });

  it('an encoding the server cannot decode is 415 with a JSON-RPC body', async () => {
    const app = newApp();
    const response = await app.inject({
      method: 'POST',
      url: '/mcp/python',
      headers: { ...MCP_HEADERS, 'content-encoding': 'zstd' },
      payload: JSON.stringify(INITIALIZE),
    });
    expect(response.statusCode).toBe(415);
    expect(response.json()).toMatchObject({ jsonrpc: '2.0', error: { data: { code: 'HTTP_ERR_UNSUPPORTED_ENCODING' } } });
  });

  it('1,000,000 levels in params._meta on the SDK path are a typed 400, not a dropped connection', async () => {
    const app = newApp();
    const response = await app.inject({ method: 'POST', url: '/mcp/wiki', headers: MODERN_HEADERS, payload: deeplyNestedCall(1_000_000) });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, data: { code: 'HTTP_ERR_JSON_TOO_DEEP', limit: MAX_JSON_NESTING_DEPTH } },
    });
  });

  it('nesting at the limit is served; one level more is refused', async () => {
    const app = newApp();
    // The body's own levels (message, params, _meta) count too.
    const atLimit = await app.inject({ method: 'POST', url: '/mcp/wiki', headers: MODERN_HEADERS, payload: deeplyNestedCall(MAX_JSON_NESTING_DEPTH - 3) });
    expect(atLimit.statusCode).toBe(200);
    const over = await app.inject({ method: 'POST', url: '/mcp/wiki', headers: MODERN_HEADERS, payload: deeplyNestedCall(MAX_JSON_NESTING_DEPTH - 2) });
    expect(over.statusCode).toBe(400);
  });

  it('brackets inside strings do not count as nesting', async () => {
    const app = newApp();
    const call = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { ...INITIALIZE.params, clientInfo: { name: `${'[{'.repeat(10_000)}\\"`, version: '1' } },
    };
    const response = await app.inject({ method: 'POST', url: '/mcp/python', headers: MCP_HEADERS, payload: JSON.stringify(call) });
    expect(response.statusCode).toBe(200);
  });

  it('deep JSON on the legacy path, a handle path and a /v1 route is refused alike', async () => {
    const app = newApp();
    const deep = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"_meta":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`;
    const legacy = await app.inject({ method: 'POST', url: '/mcp/python', headers: MCP_HEADERS, payload: deep });
    expect(legacy.statusCode).toBe(400);
    expect(legacy.json()).toMatchObject({ error: { data: { code: 'HTTP_ERR_JSON_TOO_DEEP' } } });
    const handle = await app.inject({ method: 'POST', url: '/mcp/python/hdl_unknown', headers: MCP_HEADERS, payload: deep });
    expect(handle.statusCode).toBe(400);
    const v1 = await app.inject({
      method: 'POST',
      url: '/v1/sandboxes',
      headers: { 'content-type': 'application/json' },
      payload: `{"env":"python","env_vars":${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
    });
    expect(v1.statusCode).toBe(400);
    expect(v1.json()).toMatchObject({ error: { code: 'HTTP_ERR_JSON_TOO_DEEP' } });
  });

  it('a deep WebSocket frame gets a JSON-RPC error and the connection keeps serving', async () => {
    const app = newApp();
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as { port: number };
    const socket = new WebSocket(`ws://127.0.0.1:${port}/ws/python`);
    const replies: unknown[] = [];
    socket.on('message', (data) => replies.push(JSON.parse(String(data))));
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    socket.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"_meta":${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}}}`);
    socket.send(JSON.stringify(INITIALIZE));
    await expect.poll(() => replies.length, { timeout: 10_000 }).toBe(2);
    expect(replies[0]).toMatchObject({ jsonrpc: '2.0', error: { code: -32600, data: { code: 'HTTP_ERR_JSON_TOO_DEEP' } } });
    expect(replies[1]).toMatchObject({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-11-25' } });
    socket.close();
  });
});
