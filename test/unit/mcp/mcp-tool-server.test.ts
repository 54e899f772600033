/**
 * Error routing of createToolServer over the SDK's in-memory linked pair (STYLE principle 9): failures
 * inside a tool are isError results, infrastructure faults are JSON-RPC errors carrying the CorralError
 * code, and sandboxes are leased lazily, once, only after the input is valid.
 */
import { Client, InMemoryTransport, ProtocolError } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CorralError } from '../../../src/core/errors.js';
import { createToolServer } from '../../../src/mcp/create-tool-server.js';
import { LazySandboxes } from '../../../src/mcp/lazy-sandboxes.js';
import type { SandboxSource } from '../../../src/mcp/sandbox-source.js';
import type { ToolCallRecord } from '../../../src/mcp/tool-call-observer.js';
import type { Lease } from '../../../src/sandbox/lease.js';
import type { SandboxSession } from '../../../src/sandbox/session.js';
import { defineTool } from '../../../src/tools/tool-definition.js';
import { cites } from '../../e2e/mcp-requirements.js';

const failing = (error: Error) =>
  defineTool({
    name: 'fail',
    title: 'Fail',
    description: 'Throws the configured error.',
    inputSchema: z.object({ count: z.number() }),
    outputSchema: z.object({ ok: z.boolean() }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async execute(_input, context) {
      await context.sandbox.session({ abortSignal: context.abortSignal });
      throw error;
    },
  });

function fakeSource(options: { failWith?: Error } = {}) {
  const leases: { released: boolean; closed: boolean }[] = [];
  const source: SandboxSource = {
    async acquire() {
      if (options.failWith) throw options.failWith;
      const state = { released: false, closed: false };
      leases.push(state);
      return {
        id: `lease_${leases.length}`,
        session: { id: `sbx_${leases.length}` } as unknown as SandboxSession,
        get closed() {
          return state.closed;
        },
        release: async () => void (state.released = true),
      } as unknown as Lease;
    },
  };
  return { source, leases };
}

async function connect(tool: ReturnType<typeof failing>, source: SandboxSource, records: ToolCallRecord[] = []) {
  const sandboxes = new LazySandboxes(source);
  const server = createToolServer({ tools: [tool], sandboxSource: sandboxes, observer: { toolCallFinished: (record) => records.push(record) } });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'unit', version: '1' });
  await client.connect(clientSide);
  return { client, sandboxes };
}

describe('createToolServer error routing', () => {
  it('returns a model-audience CorralError as an isError result with its code', async () => {
    const records: ToolCallRecord[] = [];
    const { client } = await connect(failing(new CorralError('SBX_ERR_PERMISSION', 'outside the workspace')), fakeSource().source, records);
    const result = await client.callTool({ name: 'fail', arguments: { count: 1 } });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({ error: { code: 'SBX_ERR_PERMISSION', message: 'outside the workspace' } });
    expect(records).toMatchObject([{ tool: 'fail', outcome: 'tool_error', errorCode: 'SBX_ERR_PERMISSION' }]);
  });

  it('sends a wrapped error of a tool without an outputSchema as text only, and still records its code', async () => {
    const records: ToolCallRecord[] = [];
    const { outputSchema: _declared, ...schemaless } = failing(new CorralError('SBX_ERR_PERMISSION', 'outside the workspace'));
    const { client } = await connect(schemaless as ReturnType<typeof failing>, fakeSource().source, records);
    const result = await client.callTool({ name: 'fail', arguments: { count: 1 } });
    expect(result).toEqual({ content: [{ type: 'text', text: 'Error (SBX_ERR_PERMISSION): outside the workspace' }], isError: true });
    const invalid = await client.callTool({ name: 'fail', arguments: { count: 'many' } });
    expect(invalid.structuredContent).toBeUndefined();
    expect(records).toMatchObject([
      { tool: 'fail', outcome: 'tool_error', errorCode: 'SBX_ERR_PERMISSION' },
      { tool: 'fail', outcome: 'tool_error', errorCode: 'INVALID_ARGUMENTS' },
    ]);
  });

  it(`throws an infrastructure CorralError to the client as a JSON-RPC error with the code in data ${cites('ERR-INFRA')}`, async () => {
    const records: ToolCallRecord[] = [];
    const { client } = await connect(failing(new CorralError('SBX_ERR_KILLED', 'out of memory')), fakeSource().source, records);
    const error = await client.callTool({ name: 'fail', arguments: { count: 1 } }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).code).toBe(-32603);
    expect((error as ProtocolError).data).toEqual({ corralCode: 'SBX_ERR_KILLED', audience: 'infrastructure', transient: true });
    expect(records).toMatchObject([{ outcome: 'failed', errorCode: 'SBX_ERR_KILLED' }]);
  });

  it("routes every tool by one rule: a plain Error is the model's to read, a caller-audience CorralError is not", async () => {
    const records: ToolCallRecord[] = [];
    const plain = await connect(failing(new Error('not in the word list')), fakeSource().source, records);
    const result = await plain.client.callTool({ name: 'fail', arguments: { count: 1 } });
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Error (TOOL_FAILED): not in the word list' }] });
    const misconfigured = await connect(failing(new CorralError('SBX_ERR_UNSUPPORTED', 'no shell on an isolate')), fakeSource().source, records);
    const error = await misconfigured.client.callTool({ name: 'fail', arguments: { count: 1 } }).catch((caught: unknown) => caught);
    expect((error as ProtocolError).data).toMatchObject({ corralCode: 'SBX_ERR_UNSUPPORTED', audience: 'caller' });
    expect(records).toMatchObject([
      { outcome: 'tool_error', errorCode: 'TOOL_FAILED' },
      { outcome: 'failed', errorCode: 'SBX_ERR_UNSUPPORTED' },
    ]);
  });

  it('reports a pool that cannot lease as a JSON-RPC error, and leases nothing for invalid input', async () => {
    const exhausted = fakeSource({ failWith: new CorralError('POOL_ERR_ACQUIRE_TIMEOUT', 'no sandbox became free') });
    const { client } = await connect(failing(new Error('unreachable')), exhausted.source);
    const invalid = await client.callTool({ name: 'fail', arguments: { count: 'many' } });
    expect(invalid.isError).toBe(true);
    expect((invalid.structuredContent as { error: { code: string } }).error.code).toBe('INVALID_ARGUMENTS');
    const error = await client.callTool({ name: 'fail', arguments: { count: 1 } }).catch((caught: unknown) => caught);
    expect((error as ProtocolError).data).toMatchObject({ corralCode: 'POOL_ERR_ACQUIRE_TIMEOUT', transient: true });
  });
});

describe('LazySandboxes', () => {
  it('shares one acquire between concurrent first calls and releases it once', async () => {
    const { source, leases } = fakeSource();
    const sandboxes = new LazySandboxes(source);
    const sessions = await Promise.all([sandboxes.session('general'), sandboxes.session('general'), sandboxes.session('general')]);
    expect(new Set(sessions.map((session) => session.id)).size).toBe(1);
    await sandboxes.session('javascript');
    expect(leases).toHaveLength(2);
    await sandboxes.release();
    await sandboxes.release();
    expect(leases.every((lease) => lease.released)).toBe(true);
    await expect(sandboxes.session('general')).rejects.toMatchObject({ code: 'SBX_ERR_CLOSED' });
  });

  it('reports a sandbox that died once with SBX_ERR_CLOSED, then starts a fresh one', async () => {
    const { source, leases } = fakeSource();
    const sandboxes = new LazySandboxes(source);
    const first = await sandboxes.session('general');
    leases[0]!.closed = true;
    await expect(sandboxes.session('general')).rejects.toMatchObject({ code: 'SBX_ERR_CLOSED' });
    const second = await sandboxes.session('general');
    expect(second.id).not.toBe(first.id);
    expect(leases[0]!.released).toBe(true);
  });

  it('counts running calls as activity for idle expiry', async () => {
    const sandboxes = new LazySandboxes(fakeSource().source);
    const endCall = sandboxes.beginCall();
    expect(sandboxes.idleFor(0, Date.now() + 60_000)).toBe(false);
    endCall();
    expect(sandboxes.idleFor(0, Date.now() + 60_000)).toBe(true);
  });
});
