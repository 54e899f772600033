/**
 * Tool sessions for `corral eval` in one process: each rollout gets its own tool server assembly over an in-memory
 * linked pair, with its own lazily leased sandboxes, so the runner talks MCP exactly as it would to a remote server.
 */
import { InMemoryTransport } from '@modelcontextprotocol/client';
import type { SandboxSource } from '../../mcp/sandbox-source.js';
import type { ToolCallObserver } from '../../mcp/tool-call-observer.js';
import { assembleToolServer } from '../../mcp/tool-server-assembly.js';
import { openMcpToolSession } from '../../runner/contract/mcp-tool-session.js';
import type { ToolSessionFactory } from '../../runner/contract/tool-session.js';
import type { ToolDefinition } from '../../tools/tool-definition.js';

export function inProcessToolSessions(
  tools: readonly ToolDefinition[],
  source: SandboxSource,
  options: { observer?: ToolCallObserver } = {},
): ToolSessionFactory {
  return {
    async open(sessionOptions) {
      const assembly = assembleToolServer({ tools, sandboxes: { source }, observer: options.observer });
      const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
      try {
        await assembly.server.connect(serverTransport);
        return await openMcpToolSession(clientTransport, { ...sessionOptions, onClose: () => assembly.close() });
      } catch (error) {
        await assembly.close();
        throw error;
      }
    },
  };
}
