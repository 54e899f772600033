/**
 * A served environment's own tools (defineTool) at /mcp/<env>, seen by a real MCP client over Streamable HTTP:
 * - a tool that returns text gives the client that text and nothing else (no made-up structuredContent, no
 *   advertised outputSchema), so every agent CLI shows the model the same observation;
 * - a tool that reads the example, where no example was chosen, is refused with ENV_ERR_NO_EXAMPLE instead of
 *   comparing against undefined and answering plausibly wrong.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withServedEnvironments } from '../../src/cli/runtime/environment-catalog-entries.js';
import { servedEnvironmentsOf } from '../../src/cli/runtime/served-environments.js';
import { loadConfig } from '../../src/config/load-config.js';
import { buildServer } from '../../src/http/build-server.js';
import { defineEnvironment, defineTool, z } from '../../src/index.js';
import { poolSandboxSource } from '../../src/mcp/sandbox-source.js';
import type { ToolCatalog } from '../../src/mcp/tool-catalog.js';
import { SandboxPool } from '../../src/sandbox/pool/sandbox-pool.js';
import { connectHttp, textOf } from '../helpers/mcp-clients.js';

const door = defineTool({
  name: 'door',
  description: 'Says whether the door is open.',
  inputSchema: z.object({}),
  execute: () => 'OPEN',
});

const reading = defineTool({
  name: 'reading',
  description: 'Reports a reading with structured content it declares.',
  inputSchema: z.object({}),
  outputSchema: z.object({ value: z.number() }),
  execute: () => ({ text: 'value 7', structuredContent: { value: 7 } }),
});

const guess = defineTool({
  name: 'guess',
  description: 'Compares a guess with the answer of the example.',
  inputSchema: z.object({ word: z.string() }),
  execute: ({ word }, { example }) => (word === example.answer ? 'right' : 'wrong'),
});

const environment = defineEnvironment({
  name: 'doors',
  tools: [door, reading, guess],
  dataset: () => [{ id: 'one', prompt: 'guess', answer: 'crane' }],
  rubric: [{ name: 'zero', weight: 1, score: () => 0 }],
  systemPrompt: 'Open doors.',
});

const EMPTY_CATALOG: ToolCatalog = { get: () => undefined, names: () => [] };
let close: () => Promise<void> = async () => undefined;
let baseUrl = '';

beforeAll(async () => {
  const served = servedEnvironmentsOf(new Map([['doors', { name: 'doors', definition: environment, source: { kind: 'built-in' as const, name: 'doors' } }]]));
  const environments = await withServedEnvironments(EMPTY_CATALOG, served, { wiki: undefined, log: () => undefined });
  const pool = new SandboxPool({ minIdle: 0, healthIntervalMs: 0, reapIntervalMs: 0 });
  const app = buildServer(loadConfig({ env: {}, flags: { host: '127.0.0.1', port: 0, backend: 'process' } }), {
    environments,
    sandboxSource: poolSandboxSource(pool, { general: { backend: 'process' }, javascript: { backend: 'isolate' } }),
    pool,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  close = async () => {
    await app.close();
    await pool.close();
  };
});

afterAll(() => close());

describe('custom tools at /mcp/<env>, through a real MCP client', () => {
  it('a text reply is text only: no structuredContent and no outputSchema; a declared outputSchema still gets its structuredContent', async () => {
    const { client } = await connectHttp(`${baseUrl}/mcp/doors`);
    try {
      const { tools } = await client.listTools();
      expect(tools.find((tool) => tool.name === 'door')?.outputSchema).toBeUndefined();
      expect(tools.find((tool) => tool.name === 'reading')?.outputSchema).toMatchObject({ properties: { value: { type: 'number' } } });
      const open = (await client.callTool({ name: 'door', arguments: {} })) as CallToolResult;
      expect(open.content).toEqual([{ type: 'text', text: 'OPEN' }]);
      expect(open.structuredContent).toBeUndefined();
      expect(open.isError).toBeFalsy();
      const value = (await client.callTool({ name: 'reading', arguments: {} })) as CallToolResult;
      expect(value.structuredContent).toEqual({ value: 7 });
      expect(textOf(value)).toBe('value 7');
    } finally {
      await client.close();
    }
  });

  it('a tool that reads the example is refused with ENV_ERR_NO_EXAMPLE outside a rollout or episode, not answered against undefined', async () => {
    const { client } = await connectHttp(`${baseUrl}/mcp/doors`);
    try {
      const result = (await client.callTool({ name: 'guess', arguments: { word: 'crane' } })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/ENV_ERR_NO_EXAMPLE.*example\.answer.*\/v1\/episodes/);
      // Tools that never read the example keep working on the same session.
      const open = (await client.callTool({ name: 'door', arguments: {} })) as CallToolResult;
      expect(textOf(open)).toBe('OPEN');
    } finally {
      await client.close();
    }
  });
});
