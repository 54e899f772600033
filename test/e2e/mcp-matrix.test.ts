/**
 * The python toolset over every transport × backend cell: HTTP, WebSocket and stdio (a spawned
 * `corral mcp python --backend <b>`) against the process and docker backends. Each cell connects a real SDK
 * client, lists tools, keeps python state across calls, runs bash, round-trips a file through write_file,
 * read_file and bash (one workspace), and gets an isError result for a failing command.
 */
import { resolve } from 'node:path';
import { type Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildImages } from '../../src/sandbox/docker/image-builder.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { callTool, connectHttp, newClient, textOf } from '../helpers/mcp-clients.js';
import { type TestServer, startTestServer } from '../helpers/mcp-test-server.js';
import { WebSocketClientTransport } from '../helpers/websocket-client-transport.js';
import { cites } from './mcp-requirements.js';

const CLI = resolve(import.meta.dirname, '../../bin/corral.mjs');
const TOKEN = 'matrix-test-token';
const BACKENDS = ['process', 'docker'] as const;
const TRANSPORTS = ['http', 'websocket', 'stdio'] as const;
type Backend = (typeof BACKENDS)[number];
type Transport = (typeof TRANSPORTS)[number];

const available: Record<Backend, boolean> = { process: await backendAvailable('process'), docker: await backendAvailable('docker') };

async function connect(transport: Transport, backend: Backend, server: TestServer | undefined): Promise<Client> {
  if (transport === 'http') return (await connectHttp(`${server!.baseUrl}/mcp/python`, { headers: { authorization: `Bearer ${TOKEN}` } })).client;
  const client = newClient();
  if (transport === 'websocket') {
    await client.connect(new WebSocketClientTransport(`${server!.baseUrl.replace(/^http/, 'ws')}/ws/python`, { authorization: `Bearer ${TOKEN}` }));
  } else {
    const env = { ...(process.env as Record<string, string>), CORRAL_MIN_IDLE: '0' };
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', 'python', '--backend', backend], env, stderr: 'pipe' }));
  }
  return client;
}

for (const backend of BACKENDS) {
  describe.skipIf(!available[backend])(`python toolset, ${backend} backend`, () => {
    let server: TestServer | undefined;

    beforeAll(async () => {
      if (backend === 'docker') await buildImages({ offline: true, log: (line) => console.log(`[images] ${line}`) });
      server = await startTestServer({ token: TOKEN, backend });
    }, 900_000);
    afterAll(async () => server?.close());

    for (const transport of TRANSPORTS) {
      it(`over ${transport}: tools, python state, bash, files and an isError failure ${cites('TOOLS-LIST', 'PY-STATE', 'SH-EXEC', 'FS-ROUNDTRIP', 'ERR-TOOL')}`, async () => {
        const client = await connect(transport, backend, server);
        try {
          const names = (await client.listTools()).tools.map((tool) => tool.name);
          expect(names).toEqual(expect.arrayContaining(['python', 'python_reset', 'bash', 'write_file', 'read_file']));

          expect((await callTool(client, 'python', { code: 'count = 20' })).isError).toBeFalsy();
          expect((await callTool(client, 'python', { code: 'count + 22' })).structuredContent.value).toBe('42');

          const bash = await callTool(client, 'bash', { command: 'echo out; echo err >&2' });
          expect(bash.isError).toBeFalsy();
          expect(bash.structuredContent).toMatchObject({ stdout: 'out\n', stderr: 'err\n', exit_code: 0 });

          expect((await callTool(client, 'write_file', { path: 'cell.txt', content: `written over ${transport}\n` })).isError).toBeFalsy();
          expect((await callTool(client, 'read_file', { path: 'cell.txt' })).structuredContent).toMatchObject({ content: `written over ${transport}\n` });
          expect((await callTool(client, 'bash', { command: 'cat cell.txt' })).structuredContent.stdout).toBe(`written over ${transport}\n`);

          // The cell's backend is the one serving: Docker puts /.dockerenv in every container, bubblewrap does not.
          const where = await callTool(client, 'bash', { command: 'test -f /.dockerenv && echo docker || echo not-docker' });
          expect(where.structuredContent.stdout).toBe(backend === 'docker' ? 'docker\n' : 'not-docker\n');

          const failed = await callTool(client, 'bash', { command: 'echo broken >&2; exit 7' });
          expect(failed.isError).toBe(true);
          expect(failed.structuredContent).toMatchObject({ exit_code: 7, stderr: 'broken\n' });
          expect(textOf(failed)).toContain('[exit code 7]');
        } finally {
          await client.close();
        }
      }, 180_000);
    }
  });
}
