/**
 * One tool contract (issue 22): a built-in tool (bash) and an environment author's tool made with the public
 * `defineTool` are the same type, and the one tool-server assembly lists and calls both, each receiving its sandbox
 * from its context (leased lazily, of the kind its capability names) and the author's tool its scope (state).
 */
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../../src/index.js';
import type { SandboxSource } from '../../../src/mcp/sandbox-source.js';
import { assembleToolServer } from '../../../src/mcp/tool-server-assembly.js';
import type { Lease } from '../../../src/sandbox/lease.js';
import type { ExecResult, SandboxSession } from '../../../src/sandbox/session.js';
import { javascriptTool } from '../../../src/tools/js/javascript-tool.js';
import { bashTool } from '../../../src/tools/shell/bash-tool.js';
import { type ToolDefinition, defineTool as contractDefineTool } from '../../../src/tools/tool-definition.js';

const executed: ExecResult = {
  stdout: 'hello\n',
  stderr: '',
  exitCode: 0,
  signal: null,
  stdoutTruncated: false,
  stderrTruncated: false,
  timedOut: false,
  durationMs: 3,
};

function recordingSource() {
  const kinds: string[] = [];
  const commands: string[] = [];
  const source: SandboxSource = {
    async acquire(kind) {
      kinds.push(kind);
      const session = {
        id: `sbx_${kind}`,
        exec: async (options: { command: string }) => (commands.push(options.command), executed),
        javascript: async () => ({ value: '2', logs: [], error: null, timedOut: false, stateLost: false, durationMs: 1 }),
      } as unknown as SandboxSession;
      return { id: `lease_${kind}`, session, closed: false, release: async () => undefined } as unknown as Lease;
    },
  };
  return { source, kinds, commands };
}

const shout = defineTool({
  name: 'shout',
  description: 'Runs echo in the sandbox and returns it in capitals, counting calls in the state.',
  inputSchema: z.object({ word: z.string() }),
  async execute(input, context: { sandbox: { exec: SandboxSession['exec'] }; state: { calls: number }; abortSignal: AbortSignal }) {
    context.state.calls += 1;
    const result = await context.sandbox.exec({ command: `echo ${input.word}`, abortSignal: context.abortSignal });
    return `${result.stdout.trim().toUpperCase()} (${context.state.calls})`;
  },
});

describe('one tool contract', () => {
  it('types a built-in tool and a user tool made by the public defineTool as the one ToolDefinition', () => {
    expectTypeOf(bashTool).toExtend<ToolDefinition>();
    expectTypeOf(shout).toExtend<ToolDefinition>();
    expectTypeOf<ToolDefinition['execute']>().toBeFunction();
    // The public defineTool is the contract's own, not a second one adapted into it.
    expect(defineTool).toBe(contractDefineTool);
    // Both came out of the same defineTool: frozen, with an execute method and no second calling convention.
    for (const tool of [bashTool, shout] as ToolDefinition[]) {
      expect(Object.isFrozen(tool)).toBe(true);
      expect(typeof tool.execute).toBe('function');
      expect(tool).not.toHaveProperty('handler');
    }
  });

  it('lists and calls both through the one assembly, each leasing the sandbox kind its capability names', async () => {
    const { source, kinds, commands } = recordingSource();
    const state = { calls: 0 };
    const tools: readonly ToolDefinition[] = [bashTool, javascriptTool, shout];
    const assembly = assembleToolServer({
      tools,
      sandboxes: { source },
      scopeFor: () => ({ example: { id: 'ex1', prompt: 'hi' }, state, envArgs: {} }),
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await assembly.server.connect(serverSide);
    const client = new Client({ name: 'unit', version: '1' });
    await client.connect(clientSide);

    const listed = (await client.listTools()).tools;
    expect(listed.map((tool) => tool.name)).toEqual(['bash', 'javascript', 'shout']);
    expect(listed[0]!.outputSchema?.properties).toHaveProperty('exit_code');
    expect(listed[2]).toMatchObject({
      title: 'shout',
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    });
    expect(listed[2]!.outputSchema).toBeUndefined();

    const bash = await client.callTool({ name: 'bash', arguments: { command: 'echo hello' } });
    expect(bash.structuredContent).toMatchObject({ stdout: 'hello\n', exit_code: 0 });
    const shouted = await client.callTool({ name: 'shout', arguments: { word: 'hello' } });
    expect(shouted).toEqual({ content: [{ type: 'text', text: 'HELLO (1)' }] });
    expect(state.calls).toBe(1);
    const evaluated = await client.callTool({ name: 'javascript', arguments: { code: '1 + 1' } });
    expect(evaluated.structuredContent).toMatchObject({ value: '2' });

    // bash and shout share the one general sandbox; javascript leased an isolate of its own.
    expect(commands).toEqual(['echo hello', 'echo hello']);
    expect(kinds).toEqual(['general', 'javascript']);
    await client.close();
    await assembly.close();
  });
});
