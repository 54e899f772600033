/**
 * `corral mcp <env>` over stdio, spawned as a real process: tools work with one sandbox for the process
 * lifetime, stdout carries nothing but JSON-RPC, and closing stdin ends the process cleanly.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { describe, expect, it } from 'vitest';
import { backendAvailable } from '../helpers/backend-gate.js';
import { callTool, newClient } from '../helpers/mcp-clients.js';
import { cites } from './mcp-requirements.js';

const processBackend = await backendAvailable('process');
const CLI = resolve(import.meta.dirname, '../../bin/corral.mjs');
const ENV = { ...(process.env as Record<string, string>), CORRAL_BACKEND: 'process' };

describe.skipIf(!processBackend)(`corral mcp over stdio, process backend ${cites('STDIO-SERVE')}`, () => {
  it('serves the python environment with state kept for the process lifetime', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', 'python'], env: ENV, stderr: 'pipe' });
    const client = newClient();
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('bash');
      await callTool(client, 'python', { code: 'answer = 6 * 7' });
      await callTool(client, 'write_file', { path: 'out.txt', content: 'stdio' });
      expect((await callTool(client, 'python', { code: 'answer' })).structuredContent.value).toBe('42');
      expect((await callTool(client, 'bash', { command: 'cat out.txt' })).structuredContent.stdout).toBe('stdio');
      expect((await callTool(client, 'read_file', { path: 'absent' })).isError).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('serves a custom environment module (its own tools beside its toolsets) bound to --env-args', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'corral-mcp-module-'));
    const modulePath = join(folder, 'env.ts');
    writeFileSync(
      modulePath,
      `import { defineEnvironment, defineTool, z } from 'corral';
export default defineEnvironment({
  name: 'greeter',
  toolsets: ['shell'],
  argsSchema: z.object({ greeting: z.string().default('hello') }),
  tools: [defineTool({ name: 'greet', description: 'Greets.', inputSchema: z.object({ who: z.string() }), execute: ({ who }, { envArgs }: { envArgs: { greeting: string } }) => envArgs.greeting + ' ' + who })],
  dataset: () => [{ id: 'one', prompt: 'greet' }],
  rubric: [{ name: 'zero', weight: 1, score: () => 0 }],
  systemPrompt: 'Greet.',
});
`,
    );
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', modulePath, '--env-args', '{"greeting":"ahoy"}'],
      env: { ...ENV, CORRAL_CACHE_DIR: join(folder, 'cache') },
      stderr: 'pipe',
    });
    const client = newClient();
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['bash', 'greet']);
      const greeted = await client.callTool({ name: 'greet', arguments: { who: 'sailor' } });
      expect(greeted.content).toEqual([{ type: 'text', text: 'ahoy sailor' }]);
      expect((await callTool(client, 'bash', { command: 'echo $((6 * 7))' })).structuredContent.stdout).toBe('42\n');
    } finally {
      await client.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('writes only JSON-RPC on stdout and exits 0 when stdin closes', async () => {
    const child = spawn(process.execPath, [CLI, 'mcp', 'python'], { env: ENV, stdio: ['pipe', 'pipe', 'pipe'] });
    const lines: string[] = [];
    createInterface({ input: child.stdout }).on('line', (line) => lines.push(line));
    const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    await expect.poll(() => lines.length, { timeout: 20_000 }).toBe(1);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'bash', arguments: { command: 'echo hi' } } });
    await expect.poll(() => lines.length, { timeout: 20_000 }).toBe(2);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    expect(JSON.parse(lines[1]!)).toMatchObject({ id: 2, result: { structuredContent: { stdout: 'hi\n', exit_code: 0 } } });
    child.stdin.end();
    expect(await exited).toBe(0);
  });

  it(`serves the wiki environment from --corpus ${cites('WIKI-TOOLS')}`, async () => {
    const corpus = resolve(import.meta.dirname, '../fixtures/mcp-wiki/pages.jsonl');
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', 'wiki', '--corpus', corpus], env: ENV, stderr: 'pipe' });
    const client = newClient();
    await client.connect(transport);
    try {
      const hits = (await callTool(client, 'search_pages', { query: 'which river flows through Cairo' })).structuredContent.results as { page_id: string }[];
      expect(hits[0]?.page_id).toBe('nile');
      const sections = (await callTool(client, 'view_sections', { page_id: 'nile' })).structuredContent.sections as { section_id: string }[];
      expect(sections.map((section) => section.section_id)).toContain('nile:history');
      expect((await callTool(client, 'read_section', { section_id: 'nile:history' })).structuredContent.content).toContain('Ancient Egypt');
    } finally {
      await client.close();
    }
  });

  it('exits with code 2 and a message on stderr for an unknown environment', async () => {
    const child = spawn(process.execPath, [CLI, 'mcp', 'nope'], { env: ENV, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolveExit) => child.once('exit', (exitCode) => resolveExit(exitCode)));
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/ENV_ERR_NOT_FOUND: no environment "nope": not a built-in/);
  });
});
