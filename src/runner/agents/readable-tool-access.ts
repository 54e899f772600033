/**
 * Wraps a ToolAccess so that the model's own mistakes come back to it as readable isError results and the rollout
 * goes on (STYLE.md principle 9): a tool name the environment does not have, or a call the server rejects as
 * misuse. Infrastructure faults still throw, so the rollout is marked errored rather than scored 0.
 */
import { CorralError } from '../../core/errors.js';
import type { ToolAccess, ToolOutcome } from '../contract/tool-access.js';

/** JSON-RPC "invalid params": how MCP servers reject an unknown tool or schema-invalid input. */
const JSON_RPC_INVALID_PARAMS = -32602;

export function readableToolAccess(tools: ToolAccess): ToolAccess {
  const names = new Set(tools.tools.map((tool) => tool.name));
  const available = [...names].join(', ') || '(none)';
  return {
    tools: tools.tools,
    async call(name, args, options) {
      // Checked here, before the server, because how a server reports an unknown tool varies by transport and SDK era.
      if (!names.has(name)) return { text: `Error: unknown tool '${name}'. Available tools: ${available}.`, isError: true };
      try {
        return await tools.call(name, args, options);
      } catch (error) {
        const readable = modelMistake(error);
        if (readable) return readable;
        throw error;
      }
    },
  };
}

function modelMistake(error: unknown): ToolOutcome | null {
  if (CorralError.isInstance(error)) return error.audience === 'model' ? { text: `Error: ${error.message}`, isError: true } : null;
  const protocol = error as { code?: unknown; data?: { corralCode?: unknown } } | null;
  // A JSON-RPC error that carries a corral code is an infrastructure fault reported by a (maybe remote) server.
  if (protocol?.code === JSON_RPC_INVALID_PARAMS && protocol.data?.corralCode === undefined) {
    return { text: `Error: ${(error as Error).message}`, isError: true };
  }
  return null;
}
