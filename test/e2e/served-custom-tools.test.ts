/**
 * A served environment's own tools (defineTool) at /mcp/<env>, seen by a real MCP client over Streamable HTTP:
 * - a tool that returns text gives the client that text and nothing else (no made-up structuredContent, no
 *   advertised outputSchema), so every agent CLI shows the model the same observation;
 * - an error result of such a tool (it threw, returned isError, got invalid arguments, read a missing example)
 *   carries its code and message in the text alone, no made-up structuredContent; one the author returned is kept;
 * - the openai agent's recorded tool message for an error is the text an MCP client sees for the same call;
 * - a CLI agent of `corral eval` (Codex, Claude Code: toolAccessCatalog over the rollout's tools) sees the same
 *   results as /mcp/<env>: no outputSchema and no structuredContent made up for text or error results;
 * - a tool that reads the example, where no example was chosen, is refused with ENV_ERR_NO_EXAMPLE instead of
 *   comparing against undefined and answering plausibly wrong.
 */
import { type CallToolResult, Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withServedEnvironments } from '../../src/cli/runtime/environment-catalog-entries.js';
import { servedEnvironmentsOf } from '../../src/cli/runtime/served-environments.js';
import { loadConfig } from '../../src/config/load-config.js';
import { buildServer } from '../../src/http/build-server.js';
import { defineEnvironment, defineTool, z } from '../../src/index.js';
import { poolSandboxSource } from '../../src/mcp/sandbox-source.js';
import type { ToolCatalog } from '../../src/mcp/tool-catalog.js';
import { SandboxPool } from '../../src/sandbox/pool/sandbox-pool.js';
import { toolAccessCatalog } from '../../src/cli/eval/tool-access-catalog.js';
import { environmentRolloutFactory, openEnvironmentRollout } from '../../src/cli/runtime/environment-rollouts.js';
import { createToolServer } from '../../src/mcp/create-tool-server.js';
import { LazySandboxes } from '../../src/mcp/lazy-sandboxes.js';
import { toolsForToolsets } from '../../src/mcp/toolsets.js';
import { TrajectoryRecorder } from '../../src/runner/trajectory/trajectory-recorder.js';
import { OpenAIAgent } from '../../src/runner/agents/openai/openai-agent.js';
import { runEvaluation } from '../../src/runner/scheduler/run-evaluation.js';
import type { ResultRecord } from '../../src/runner/trajectory/result-record.js';
import { startScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import { connectHttp, textOf } from '../helpers/mcp-clients.js';

const door = defineTool({
  name: 'door',
  description: 'Says whether the door is open.',
  inputSchema: z.strictObject({}),
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

const jammed = defineTool({
  name: 'jammed',
  description: 'Throws: the door is jammed.',
  inputSchema: z.object({}),
  execute: () => {
    throw new Error('the door is jammed');
  },
});

const locked = defineTool({
  name: 'locked',
  description: 'Replies with an error text.',
  inputSchema: z.object({}),
  execute: () => ({ text: 'LOCKED', isError: true }),
});

const alarm = defineTool({
  name: 'alarm',
  description: 'Replies with an error and structured content of its own.',
  inputSchema: z.object({}),
  execute: () => ({ text: 'ALARM in zone 3', isError: true, structuredContent: { zone: 3 } }),
});

/** The same error calls, made by an MCP client and by the openai agent's scripted model. */
const ERROR_CALLS = [
  { name: 'jammed', arguments: {} },
  { name: 'locked', arguments: {} },
  { name: 'alarm', arguments: {} },
  { name: 'door', arguments: { force: 'yes' } },
  // A built-in tool (files toolset, process sandbox): its error keeps the documented {error} structuredContent.
  { name: 'read_file', arguments: { path: 'missing.txt' } },
];

const environment = defineEnvironment({
  name: 'doors',
  toolsets: ['files'],
  tools: [door, reading, guess, jammed, locked, alarm],
  dataset: () => [{ id: 'one', prompt: 'guess', answer: 'crane' }],
  rubric: [{ name: 'zero', weight: 1, score: () => 0 }],
  systemPrompt: 'Open doors.',
});

const EMPTY_CATALOG: ToolCatalog = { get: () => undefined, names: () => [] };
let close: () => Promise<void> = async () => undefined;
let baseUrl = '';
let pool: SandboxPool;

beforeAll(async () => {
  const served = servedEnvironmentsOf(new Map([['doors', { name: 'doors', definition: environment, source: { kind: 'built-in' as const, name: 'doors' } }]]));
  const environments = await withServedEnvironments(EMPTY_CATALOG, served, { wiki: undefined, log: () => undefined });
  pool = new SandboxPool({ minIdle: 0, healthIntervalMs: 0, reapIntervalMs: 0 });
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
      expect(result.structuredContent).toBeUndefined();
      // Tools that never read the example keep working on the same session.
      const open = (await client.callTool({ name: 'door', arguments: {} })) as CallToolResult;
      expect(textOf(open)).toBe('OPEN');
    } finally {
      await client.close();
    }
  });
});

describe('error results of custom tools, through a real MCP client and through the openai agent', () => {
  it('an error is its code and message in the text only; structuredContent only when the author returned one', async () => {
    const { client } = await connectHttp(`${baseUrl}/mcp/doors`);
    try {
      const [thrown, replied, own, invalid, builtIn] = (await Promise.all(ERROR_CALLS.map((call) => client.callTool(call)))) as CallToolResult[];
      expect(thrown).toEqual({ content: [{ type: 'text', text: 'Error (TOOL_FAILED): the door is jammed' }], isError: true });
      expect(replied).toEqual({ content: [{ type: 'text', text: 'LOCKED' }], isError: true });
      expect(own).toEqual({ content: [{ type: 'text', text: 'ALARM in zone 3' }], structuredContent: { zone: 3 }, isError: true });
      expect(invalid!.isError).toBe(true);
      expect(textOf(invalid!)).toMatch(/^Error \(INVALID_ARGUMENTS\): invalid arguments for tool door: .*force/s);
      expect(invalid!.structuredContent).toBeUndefined();
      expect(builtIn).toEqual({
        content: [{ type: 'text', text: 'Error (SBX_ERR_NOT_FOUND): no such file: missing.txt' }],
        structuredContent: { error: { code: 'SBX_ERR_NOT_FOUND', message: 'no such file: missing.txt' } },
        isError: true,
      });
    } finally {
      await client.close();
    }
  });

  it("the openai agent's recorded tool messages are the texts an MCP client sees for the same failing calls", async () => {
    const { client } = await connectHttp(`${baseUrl}/mcp/doors`);
    let served: string[];
    try {
      served = ((await Promise.all(ERROR_CALLS.map((call) => client.callTool(call)))) as CallToolResult[]).map(textOf);
    } finally {
      await client.close();
    }
    const model = await startScriptedModelServer((body) =>
      body.messages.some((message) => message.role === 'tool') ? { kind: 'text', content: 'done' } : { kind: 'tool-calls', toolCalls: ERROR_CALLS },
    );
    try {
      const records: ResultRecord[] = [];
      await runEvaluation({
        environment,
        agent: new OpenAIAgent({ model: 'scripted', baseURL: model.baseURL, apiKey: 'test', maxRetries: 0 }),
        rollouts: environmentRolloutFactory({
          environment,
          toolsetTools: toolsForToolsets(environment.toolsets),
          sandboxSourceFor: () => poolSandboxSource(pool, { general: { backend: 'process' }, javascript: { backend: 'isolate' } }),
        }),
        examples: [{ id: 'one', prompt: 'open the doors', answer: 'crane' }],
        rolloutsPerExample: 1,
        concurrency: 1,
        abortSignal: new AbortController().signal,
        onGroup: (group) => records.push(...group),
      });
      expect(records[0]!.error).toBeNull();
      const recorded = records[0]!.completion.filter((message) => message.role === 'tool').map((message) => message.content);
      expect(recorded).toEqual(served);
      expect(served[0]).toBe('Error (TOOL_FAILED): the door is jammed');
    } finally {
      await model.close();
    }
  });
});

describe("a CLI agent's view of the same tools (corral eval --agent codex|claude-code: toolAccessCatalog)", () => {
  it('lists no outputSchema and sends the same content as /mcp/<env>, structuredContent only where the tool gave one', async () => {
    const generalSpecs = { general: { backend: 'process' as const }, javascript: { backend: 'isolate' as const } };
    const rollout = await openEnvironmentRollout({
      environment,
      example: { id: 'one', prompt: 'open the doors', answer: 'crane' },
      toolsetTools: toolsForToolsets(environment.toolsets),
      sandboxSource: poolSandboxSource(pool, generalSpecs),
    });
    const catalog = toolAccessCatalog('env', rollout.tools, new TrajectoryRecorder());
    const server = createToolServer({ tools: catalog.get('env')!.tools, sandboxSource: new LazySandboxes(poolSandboxSource(pool, generalSpecs)) });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const viaCli = new Client({ name: 'cli-agent', version: '1' });
    await viaCli.connect(clientSide);
    const { client: served } = await connectHttp(`${baseUrl}/mcp/doors`);
    try {
      const { tools } = await viaCli.listTools();
      expect(tools.find((tool) => tool.name === 'door')?.outputSchema).toBeUndefined();
      const calls = [{ name: 'door', arguments: {} }, { name: 'reading', arguments: {} }, ...ERROR_CALLS.slice(0, 3), ERROR_CALLS[4]!];
      for (const call of calls) {
        const [cli, mcp] = (await Promise.all([viaCli.callTool(call), served.callTool(call)])) as CallToolResult[];
        expect({ call: call.name, ...cli }).toEqual({ call: call.name, ...mcp });
      }
    } finally {
      await viaCli.close();
      await served.close();
      await rollout.close();
    }
  });
});
