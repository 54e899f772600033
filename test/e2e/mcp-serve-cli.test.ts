/**
 * `corral serve` as a real process: it listens where asked, serves MCP with the token it was given, and
 * on SIGTERM closes every session and releases its sandboxes before exiting 0.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { backendAvailable } from '../helpers/backend-gate.js';
import { callTool, connectHttp } from '../helpers/mcp-clients.js';
import { cites } from './mcp-requirements.js';

const processBackend = await backendAvailable('process');
const CLI = resolve(import.meta.dirname, '../../bin/corral.mjs');

describe.skipIf(!processBackend)('corral serve, process backend', () => {
  it(`serves MCP over HTTP and shuts down cleanly on SIGTERM ${cites('HTTP-CLOSE')}`, async () => {
    const env: Record<string, string> = { ...(process.env as Record<string, string>), CORRAL_BACKEND: 'process', CORRAL_MIN_IDLE: '0' };
    const child = spawn(process.execPath, [CLI, 'serve', '--host', '127.0.0.1', '--port', '0', '--token', 'cli-token'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
    try {
      await expect.poll(() => /listening on (http:\/\/\S+)/.exec(stderr)?.[1], { timeout: 30_000 }).toBeDefined();
      const baseUrl = /listening on (http:\/\/\S+)/.exec(stderr)![1]!;
      expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
      expect((await fetch(`${baseUrl}/metrics`)).status).toBe(401);
      const { client } = await connectHttp(`${baseUrl}/mcp/python`, { headers: { authorization: 'Bearer cli-token' } });
      expect((await callTool(client, 'bash', { command: 'echo served' })).structuredContent.stdout).toBe('served\n');
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(stderr).toContain('SIGTERM: closing sessions and releasing sandboxes');
    } finally {
      child.kill('SIGKILL');
    }
  });
});
