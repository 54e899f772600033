/**
 * The one tool-server assembly (src/mcp/tool-server-assembly.ts) and the message-stream serving built on it
 * (what `corral mcp` over stdio and WebSockets use): the fast path answers like the server's own tools/call,
 * entries with extensions get none, close() releases only sandboxes the assembly owns, and a message stream
 * carries the observer and the entry's extensions to its client.
 */
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CorralError } from '../../../src/core/errors.js';
import { LazySandboxes } from '../../../src/mcp/lazy-sandboxes.js';
import { serveMessageStream } from '../../../src/mcp/message-stream-serving.js';
import type { SandboxSource } from '../../../src/mcp/sandbox-source.js';
import type { ToolCallRecord } from '../../../src/mcp/tool-call-observer.js';
import { assembleToolServer } from '../../../src/mcp/tool-server-assembly.js';
import type { Lease } from '../../../src/sandbox/lease.js';
import type { SandboxSession } from '../../../src/sandbox/session.js';
import { defineTool } from '../../../src/tools/tool-definition.js';

const echo = defineTool({
  name: 'echo',
  title: 'Echo',
  description: 'Returns its text after leasing a sandbox.',
  inputSchema: z.object({ text: z.string() }),
  outputSchema: z.object({ text: z.string() }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async execute(input, context) {
    await context.sandbox.session({ abortSignal: context.abortSignal });
    return { structuredContent: { text: input.text }, text: input.text };
  },
});

function countingSource(options: { failWith?: Error } = {}) {
  const released: string[] = [];
  let acquired = 0;
  const source: SandboxSource = {
    async acquire() {
      if (options.failWith) throw options.failWith;
      const id = `lease_${++acquired}`;
      return {
        id,
        session: { id: `sbx_${acquired}` } as unknown as SandboxSession,
        closed: false,
        release: async () => void released.push(id),
      } as unknown as Lease;
    },
  };
  return { source, released, acquired: () => acquired };
}

describe('assembleToolServer', () => {
  it('answers tools/call without a transport as JSON-RPC replies, with the same error routing and metrics', async () => {
    const records: ToolCallRecord[] = [];
    const unavailable = countingSource({ failWith: new CorralError('SBX_ERR_UNAVAILABLE', 'no backend') });
    const assembly = assembleToolServer({
      tools: [echo],
      sandboxes: { source: unavailable.source },
      observer: { toolCallFinished: (record) => records.push(record) },
    });
    const signal = new AbortController().signal;
    const fault = await assembly.callTool!({ id: 7, params: { name: 'echo', arguments: { text: 'hi' } } }, signal);
    expect(fault).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32603, data: { corralCode: 'SBX_ERR_UNAVAILABLE' } } });
    const unknown = await assembly.callTool!({ id: 'x', params: { name: 'nope' } }, signal);
    expect(unknown).toMatchObject({ id: 'x', error: { code: -32602 } });
    expect(records).toEqual([expect.objectContaining({ tool: 'echo', outcome: 'failed', errorCode: 'SBX_ERR_UNAVAILABLE' })]);

    const working = countingSource();
    const served = assembleToolServer({ tools: [echo], sandboxes: { source: working.source } });
    expect(await served.callTool!({ id: 8, params: { name: 'echo', arguments: { text: 'hi' } } }, signal)).toMatchObject({
      id: 8,
      result: { structuredContent: { text: 'hi' } },
    });
  });

  it('offers no fast path for an entry whose extension may replace tools/call', () => {
    const assembly = assembleToolServer({ tools: [echo], sandboxes: { source: countingSource().source }, extendServer: () => undefined });
    expect(assembly.callTool).toBeUndefined();
  });

  it('releases on close only the sandboxes it owns, once however often close() is called', async () => {
    const owned = countingSource();
    const assembly = assembleToolServer({ tools: [echo], sandboxes: { source: owned.source } });
    await assembly.callTool!({ id: 1, params: { name: 'echo', arguments: { text: 'a' } } }, new AbortController().signal);
    await Promise.all([assembly.close(), assembly.close()]);
    expect(owned.released).toEqual(['lease_1']);

    const shared = countingSource();
    const handleSandboxes = new LazySandboxes(shared.source);
    const borrower = assembleToolServer({ tools: [echo], sandboxes: { shared: handleSandboxes } });
    await borrower.callTool!({ id: 2, params: { name: 'echo', arguments: { text: 'b' } } }, new AbortController().signal);
    await borrower.close();
    expect(shared.released).toEqual([]);
    expect(handleSandboxes.released).toBe(false);
    await handleSandboxes.release();
    expect(shared.released).toEqual(['lease_1']);
  });
});

describe('serveMessageStream (stdio, WebSocket)', () => {
  it("carries the observer and the entry's extensions to the client, and releases its sandboxes on close", async () => {
    const records: ToolCallRecord[] = [];
    const source = countingSource();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const served = serveMessageStream({
      entry: {
        tools: [echo],
        instructions: 'unit',
        extendServer: (server) => void server.registerPrompt('hello', { description: 'an extension' }, () => ({ messages: [] })),
      },
      sandboxes: { source: source.source },
      observer: { toolCallFinished: (record) => records.push(record) },
      transport: serverSide,
    });
    const client = new Client({ name: 'unit', version: '1' });
    await client.connect(clientSide);
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['hello']);
    expect((await client.callTool({ name: 'echo', arguments: { text: 'hi' } })).structuredContent).toEqual({ text: 'hi' });
    expect(records).toEqual([expect.objectContaining({ tool: 'echo', outcome: 'ok' })]);
    await client.close();
    await served.close();
    expect(source.released).toEqual(['lease_1']);
  });
});
