/**
 * The MCP Inspector's CLI mode (@modelcontextprotocol/inspector 0.15.0, the last line that runs on Node 20;
 * 0.16 and later need Node 22.7.5+) lists and calls corral's tools over Streamable HTTP against
 * `corral serve` and over stdio against `corral mcp python`, and prints what it got as JSON.
 *
 * Inspector 0.15 replaces the path of any Streamable HTTP URL not ending in /mcp with /mcp, so it cannot
 * name /mcp/python. A loopback proxy maps its /mcp onto corral's /mcp/python and changes nothing else
 * (method, headers, body and the streamed response pass through).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { type IncomingMessage, type Server, type ServerResponse, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CorralServerProcess, startCorralServer } from '../../scripts/conformance/corral-server-process.js';
import { backendAvailable } from '../helpers/backend-gate.js';

const processBackend = await backendAvailable('process');
const REPO_ROOT = resolve(import.meta.dirname, '../..');
const INSPECTOR_CLI = resolve(REPO_ROOT, 'node_modules/@modelcontextprotocol/inspector/cli/build/cli.js');
const CORRAL_CLI = resolve(REPO_ROOT, 'bin/corral.mjs');

interface ListedTools {
  tools: { name: string; inputSchema: { type: string } }[];
}
interface CalledTool {
  content: { type: string; text: string }[];
  structuredContent: { stdout: string; exit_code: number };
  isError?: boolean;
}

describe.skipIf(!processBackend)('MCP Inspector CLI against corral', () => {
  describe('Streamable HTTP (corral serve)', () => {
    let corral: CorralServerProcess;
    let proxy: Server;
    let inspectorUrl: string;

    beforeAll(async () => {
      corral = await startCorralServer([]);
      proxy = pathRewritingProxy(corral.baseUrl, '/mcp', '/mcp/python');
      proxy.listen(0, '127.0.0.1');
      await once(proxy, 'listening');
      inspectorUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`;
    });

    afterAll(async () => {
      proxy?.closeAllConnections();
      proxy?.close();
      await corral?.stop();
    });

    it('lists the python environment tools', async () => {
      const listed = await inspector<ListedTools>([inspectorUrl, '--transport', 'http', '--method', 'tools/list']);
      expect(listed.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['python', 'python_reset', 'bash', 'read_file', 'write_file']));
      for (const tool of listed.tools) expect(tool.inputSchema.type).toBe('object');
    });

    it('calls bash and gets text and structured content back', async () => {
      const called = await inspector<CalledTool>([
        inspectorUrl,
        '--transport',
        'http',
        '--method',
        'tools/call',
        '--tool-name',
        'bash',
        '--tool-arg',
        'command=echo hi',
      ]);
      expect(called.isError).toBeFalsy();
      expect(called.structuredContent).toMatchObject({ stdout: 'hi\n', exit_code: 0 });
      expect(called.content[0]).toMatchObject({ type: 'text' });
      expect(called.content[0]!.text).toContain('hi');
    });
  });

  describe('stdio (corral mcp python)', () => {
    const target = [process.execPath, CORRAL_CLI, 'mcp', 'python'];

    it('lists the python environment tools', async () => {
      const listed = await inspector<ListedTools>([...target, '--method', 'tools/list']);
      expect(listed.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['python', 'bash', 'read_file']));
    });

    it('calls bash and gets text and structured content back', async () => {
      const called = await inspector<CalledTool>([...target, '--method', 'tools/call', '--tool-name', 'bash', '--tool-arg', 'command=echo hi']);
      expect(called.structuredContent).toMatchObject({ stdout: 'hi\n', exit_code: 0 });
      expect(called.content[0]!.text).toContain('hi');
    });
  });
});

/** Runs `mcp-inspector --cli <args>` on this Node and parses the JSON it prints on stdout. */
async function inspector<Result>(args: readonly string[]): Promise<Result> {
  // CORRAL_BACKEND reaches `corral mcp` through the Inspector, which passes its environment to stdio servers.
  const child = spawn(process.execPath, [INSPECTOR_CLI, '--cli', ...args], {
    env: { ...process.env, CORRAL_BACKEND: 'process' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [exitCode] = (await once(child, 'close')) as [number | null];
  expect(exitCode, `inspector ${args.join(' ')} failed:\n${stderr}\n${stdout}`).toBe(0);
  return JSON.parse(stdout) as Result;
}

/** Forwards every request to `target`, replacing the path `from` with `to` (and nothing else). */
function pathRewritingProxy(target: string, from: string, to: string): Server {
  const upstream = new URL(target);
  return createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
    const [path = '/', query] = (incoming.url ?? '/').split('?');
    const forwarded = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: `${path === from ? to : path}${query ? `?${query}` : ''}`,
        headers: incoming.headers,
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', (error) => outgoing.destroy(error));
    incoming.pipe(forwarded);
  });
}
