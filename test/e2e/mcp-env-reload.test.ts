/**
 * An operator reload of a `corral serve --env <module>` environment, on a real serve process driven by SDK clients
 * of both eras: the module is rewritten to add a tool, serve gets SIGHUP, and a 2025 session (unsolicited
 * notification on its session stream) and a 2026 client (subscriptions/listen) both hear
 * notifications/tools/list_changed; listing again shows the new tool, which runs. A broken rewrite + SIGHUP keeps
 * the old tools, and the server keeps answering. tools.listChanged is declared for the reloadable entry, not for
 * built-ins.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { backendAvailable } from '../helpers/backend-gate.js';
import { callTool, connectHttp, textOf } from '../helpers/mcp-clients.js';
import { type ServeProcess, startServe } from './serve-cli-process.js';

const hasProcessBackend = await backendAvailable('process');
const INDEX = resolve(import.meta.dirname, '../../src/index.js');

/**
 * A module with echo, `slow` (answers `slow:<version>` once `releasePath` exists, so a call can be held open across
 * a reload) and, when given, `extra` (a tool answering `reply`).
 */
function environmentModule(releasePath: string, version: string, extra?: { name: string; reply: string }): string {
  const extraTool = extra
    ? `defineTool({ name: ${JSON.stringify(extra.name)}, description: 'added by a reload', inputSchema: z.object({}), async execute() { return ${JSON.stringify(extra.reply)}; } }),`
    : '';
  return `import { existsSync } from 'node:fs';
import { defineEnvironment, defineTool, z } from ${JSON.stringify(INDEX)};
const echo = defineTool({ name: 'echo', description: 'echoes its text', inputSchema: z.object({ text: z.string() }), async execute({ text }) { return 'echo:' + text; } });
const slow = defineTool({
  name: 'slow',
  description: 'answers once released',
  inputSchema: z.object({}),
  async execute() {
    while (!existsSync(${JSON.stringify(releasePath)})) await new Promise((resolve) => setTimeout(resolve, 50));
    return ${JSON.stringify(`slow:${version}`)};
  },
});
export default defineEnvironment({
  name: 'reloading',
  description: 'an environment an operator reloads',
  systemPrompt: 'Use the tools.',
  toolsets: [],
  tools: [echo, slow, ${extraTool}],
  dataset: () => [{ id: 'one', prompt: 'say hi' }],
  rubric: [{ name: 'none', weight: 1, score: () => 0 }],
});
`;
}

describe.skipIf(!hasProcessBackend)('corral serve --env <module>: SIGHUP reloads it behind the same endpoint', () => {
  let work: string;
  let modulePath: string;
  let serve: ServeProcess;
  let url: string;
  let releasePath: string;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'corral-env-reload-'));
    modulePath = join(work, 'reloading.ts');
    releasePath = join(work, 'release');
    writeFileSync(modulePath, environmentModule(releasePath, 'v1'));
    serve = startServe(['--port', '0', '--backend', 'process', '--env', modulePath]);
    const listening = await Promise.race([
      vi.waitFor(() => expect(serve.address()).toBeDefined(), { timeout: 60_000, interval: 200 }).then(() => true),
      serve.exited.then(() => false),
    ]);
    if (!listening) throw new Error(`serve exited: ${serve.stderr()}`);
    url = `${serve.address()}/mcp/reloading`;
  }, 90_000);

  afterAll(async () => {
    serve?.child.kill('SIGTERM');
    await serve?.exited;
    rmSync(work, { recursive: true, force: true });
  });

  /** Resolves with how many tools/list_changed notifications the client heard so far (a counter, polled). */
  function countToolListChanges(client: Client): () => number {
    let heard = 0;
    client.setNotificationHandler('notifications/tools/list_changed', () => void heard++);
    return () => heard;
  }

  it('declares tools.listChanged for the reloadable entry and not for a built-in', async () => {
    const { client } = await connectHttp(url);
    const { client: modern } = await connectHttp(url, { era: 'modern' });
    const { client: builtIn } = await connectHttp(`${serve.address()}/mcp/python`);
    try {
      expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);
      expect(modern.getServerCapabilities()?.tools?.listChanged).toBe(true);
      expect(builtIn.getServerCapabilities()?.tools?.listChanged).toBe(false);
    } finally {
      await Promise.all([client.close(), modern.close(), builtIn.close()]);
    }
  }, 60_000);

  it('tells 2025 sessions and 2026 listen streams, then lists and runs the added tool; a broken rewrite keeps the old tools', async () => {
    const { client: legacy } = await connectHttp(url);
    const { client: modern } = await connectHttp(url, { era: 'modern' });
    const clients: Client[] = [legacy, modern];
    try {
      const legacyHeard = countToolListChanges(legacy);
      const modernHeard = countToolListChanges(modern);
      const subscription = await modern.listen({ toolsListChanged: true });
      expect((await legacy.listTools()).tools.map((tool) => tool.name)).toEqual(['echo', 'slow']);
      expect(textOf(await callTool(legacy, 'echo', { text: 'before' }))).toBe('echo:before');
      // A handle made before the reload: its servers (and its tools/call fast path) must take the new tools too.
      const created = await fetch(`${serve.address()}/v1/sandboxes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ env: 'reloading' }),
      });
      expect(created.status).toBe(201);
      const { client: onHandle } = await connectHttp(((await created.json()) as { mcpUrl: string }).mcpUrl);
      clients.push(onHandle);
      expect(textOf(await callTool(onHandle, 'echo', { text: 'handle' }))).toBe('echo:handle');
      // Held open until after the reload: it must finish on the definition it started with.
      const inFlight = callTool(legacy, 'slow');

      writeFileSync(modulePath, environmentModule(releasePath, 'v2', { name: 'added', reply: 'added-after-reload' }));
      serve.child.kill('SIGHUP');
      await expect.poll(legacyHeard, { timeout: 30_000 }).toBeGreaterThanOrEqual(1);
      await expect.poll(modernHeard, { timeout: 30_000 }).toBeGreaterThanOrEqual(1);
      expect(serve.stderr()).toContain('reloaded environment reloading: tools echo, slow, added');
      writeFileSync(releasePath, '');
      expect(textOf(await inFlight)).toBe('slow:v1');
      expect(textOf(await callTool(legacy, 'slow'))).toBe('slow:v2');

      // The same session (no reconnect) sees the new list and runs the new tool; the old one still works.
      expect((await legacy.listTools()).tools.map((tool) => tool.name)).toEqual(['echo', 'slow', 'added']);
      expect(textOf(await callTool(legacy, 'added'))).toBe('added-after-reload');
      expect(textOf(await callTool(legacy, 'echo', { text: 'after' }))).toBe('echo:after');
      expect((await modern.listTools()).tools.map((tool) => tool.name)).toEqual(['echo', 'slow', 'added']);
      expect(textOf(await callTool(modern, 'added'))).toBe('added-after-reload');
      expect(textOf(await callTool(onHandle, 'added'))).toBe('added-after-reload');

      // A module that no longer loads: logged with its code, the old definition keeps serving, no notification.
      const heardBefore = legacyHeard();
      writeFileSync(modulePath, 'export default defineEnvironment({ this is not JavaScript');
      serve.child.kill('SIGHUP');
      await expect.poll(() => serve.stderr(), { timeout: 30_000 }).toMatch(/reload of environment reloading failed \[ENV_ERR_INVALID_MODULE\]/);
      expect((await legacy.listTools()).tools.map((tool) => tool.name)).toEqual(['echo', 'slow', 'added']);
      expect(textOf(await callTool(legacy, 'added'))).toBe('added-after-reload');
      expect(legacyHeard()).toBe(heardBefore);
      expect(serve.child.exitCode).toBeNull();
      const health = await fetch(`${serve.address()}/healthz`);
      expect(health.status).toBe(200);
      await subscription.close();
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  }, 120_000);
});
