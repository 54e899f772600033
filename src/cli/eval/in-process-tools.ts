/**
 * The one in-memory MCP session assembly: a tool-server assembly over the SDK's in-memory linked pair, with the runner's
 * MCP tool session on the client end, so the runner talks MCP in one process exactly as it would to a remote server.
 * `corral eval`'s rollouts (environment-rollouts.ts), terminal trials and toolset-only benchmarks all open theirs here.
 */
import { InMemoryTransport } from '@modelcontextprotocol/client';
import type { SandboxSource } from '../../mcp/sandbox-source.js';
import type { ToolCallObserver } from '../../mcp/tool-call-observer.js';
import { type ToolServerAssemblyOptions, assembleToolServer } from '../../mcp/tool-server-assembly.js';
import { openMcpToolSession } from '../../runner/contract/mcp-tool-session.js';
import type { ToolSession, ToolSessionFactory } from '../../runner/contract/tool-session.js';
import type { ToolDefinition } from '../../tools/tool-definition.js';

type ToolSessionOptions = Parameters<ToolSessionFactory['open']>[0];

/** Connects one assembly to one session; closing the session closes the assembly (and releases sandboxes it owns). */
export async function openInProcessToolSession(assemblyOptions: ToolServerAssemblyOptions, sessionOptions: ToolSessionOptions = {}): Promise<ToolSession> {
  const assembly = assembleToolServer(assemblyOptions);
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  try {
    await assembly.server.connect(serverTransport);
    return await openMcpToolSession(clientTransport, { ...sessionOptions, onClose: () => assembly.close() });
  } catch (error) {
    await assembly.close();
    throw error;
  }
}

/** A session per open(), each with its own lazily leased sandboxes: tools with no environment scope (toolsets, trials). */
export function inProcessToolSessions(
  tools: readonly ToolDefinition[],
  source: SandboxSource,
  options: { observer?: ToolCallObserver } = {},
): ToolSessionFactory {
  return {
    open: (sessionOptions) => openInProcessToolSession({ tools, sandboxes: { source }, observer: options.observer }, sessionOptions),
  };
}
