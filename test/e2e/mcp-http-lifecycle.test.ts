/**
 * Lifecycle: /metrics reports pool sizes and tool calls, idle sessions give their sandboxes back, and
 * app.close() releases every lease still held by sessions and handles.
 */
import { describe, expect, it } from 'vitest';
import { backendAvailable } from '../helpers/backend-gate.js';
import { callTool, connectHttp } from '../helpers/mcp-clients.js';
import { type TestServer, startTestServer } from '../helpers/mcp-test-server.js';
import { cites } from './mcp-requirements.js';

const processBackend = await backendAvailable('process');

describe.skipIf(!processBackend)('server lifecycle, process backend', () => {
  it(`exposes pool sizes, tool call counts, latencies and errors by code on /metrics ${cites('HTTP-METRICS')}`, async () => {
    const server = await startTestServer();
    try {
      const { client, transport } = await connectHttp(`${server.baseUrl}/mcp/python`);
      await callTool(client, 'bash', { command: 'true' });
      await callTool(client, 'read_file', { path: 'missing.txt' });
      const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text();
      expect(metrics).toMatch(/corral_pool_sandboxes\{backend="process",spec_hash="\w+",state="leased"\} 1/);
      expect(metrics).toContain('corral_tool_calls_total{tool="bash",outcome="ok"} 1');
      expect(metrics).toContain('corral_tool_calls_total{tool="read_file",outcome="tool_error"} 1');
      expect(metrics).toContain('corral_tool_errors_total{tool="read_file",code="SBX_ERR_NOT_FOUND"} 1');
      expect(metrics).toMatch(/corral_tool_call_duration_seconds_count\{tool="bash"\} 1/);
      expect(metrics).toContain('corral_mcp_active{kind="legacySessions"} 1');
      await transport.terminateSession();
    } finally {
      await server.close();
    }
  });

  it(`releases the sandbox of a session left idle past the idle TTL ${cites('SESSION-IDLE')}`, async () => {
    const server = await startTestServer({ idleTtlMs: 1_000 });
    try {
      const { client } = await connectHttp(`${server.baseUrl}/mcp/python`);
      await callTool(client, 'bash', { command: 'true' });
      expect(leased(server)).toBe(1);
      await expect.poll(() => leased(server), { timeout: 10_000, interval: 200 }).toBe(0);
      expect(server.app.corral.host.stats().legacySessions).toBe(0);
    } finally {
      await server.close();
    }
  });

  it(`releases every lease on app.close(), from sessions and handles alike ${cites('HTTP-CLOSE')}`, async () => {
    const server = await startTestServer();
    const { client } = await connectHttp(`${server.baseUrl}/mcp/python`);
    await callTool(client, 'python', { code: '1' });
    const handle = (await (
      await fetch(`${server.baseUrl}/v1/sandboxes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"env":"python"}' })
    ).json()) as { mcpUrl: string };
    const other = await connectHttp(handle.mcpUrl, { era: 'modern' });
    await callTool(other.client, 'bash', { command: 'true' });
    expect(leased(server)).toBe(2);
    await server.app.close();
    expect(leased(server)).toBe(0);
    await server.pool.close();
  });
});

function leased(server: TestServer): number {
  return server.pool.stats().reduce((sum, bucket) => sum + bucket.leased, 0);
}
