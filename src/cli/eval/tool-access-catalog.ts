/**
 * A rollout's tools (its ToolAccess: the environment's built-in and own tools, over the runner's in-process
 * MCP session) as a one-entry ToolCatalog, so corral's HTTP MCP server can serve them to a CLI agent. Each
 * call is forwarded to the rollout's session, so the rubric later sees the same tool sandbox and state, and
 * recorded on the trajectory (tool-call and tool-result events, toolCalls) in the model turn it belongs to.
 */
import { z } from 'zod';
import type { ToolCatalog } from '../../mcp/tool-catalog.js';
import type { ToolAccess } from '../../runner/contract/tool-access.js';
import type { TrajectoryRecorder } from '../../runner/trajectory/trajectory-recorder.js';
import type { ToolDefinition } from '../../tools/tool-definition.js';

export function toolAccessCatalog(name: string, tools: ToolAccess, recorder: TrajectoryRecorder): ToolCatalog {
  let callCount = 0;
  const definitions: ToolDefinition[] = tools.tools.map((tool) => ({
    name: tool.name,
    title: tool.name,
    description: tool.description,
    // The session already validates input against this schema; here it only has to be listed faithfully.
    inputSchema: asObjectSchema(tool.inputSchema),
    // No outputSchema: it would oblige a structuredContent on every result, and Codex and Claude Code show that to
    // the model in place of the text; the CLI agent must see what /mcp/<env> and the openai agent see.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    // The forwarded call runs in the rollout's own session and sandbox; this server leases nothing.
    async execute(input, context) {
      const call = { id: `mcp_${++callCount}`, type: 'function' as const, function: { name: tool.name, arguments: JSON.stringify(input) } };
      const outcome = await recorder.callTool(tools, call, recorder.turns, context.abortSignal);
      return { text: outcome.text, isError: outcome.isError, ...(outcome.structuredContent ? { structuredContent: outcome.structuredContent } : {}) };
    },
  }));
  const entry = Object.freeze({ name, tools: definitions, instructions: `The tools of environment ${name}.` });
  return { get: (entryName) => (entryName === name ? entry : undefined), names: () => [name] as never };
}

function asObjectSchema(schema: Record<string, unknown>): z.ZodObject {
  const converted = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  return converted instanceof z.ZodObject ? converted : z.looseObject({});
}
