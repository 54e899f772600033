/**
 * An environment's own tools (defineTool) as ToolDefinitions, so every transport serves them exactly like the
 * built-ins: in-process MCP for `corral eval`, /mcp/<env> and the episode API on the server. The context of a
 * call (example, state, envArgs, sandbox) comes from `contextOf`, which the caller binds to one rollout or
 * episode; the call's own abortSignal is added here.
 */
import { CorralError } from '../../core/errors.js';
import type { Environment } from '../../runner/contract/environment.js';
import type { EnvironmentTool, EnvironmentToolReply } from '../../runner/contract/environment-tool.js';
import type { RolloutContext } from '../../runner/contract/rollout-context.js';
import type { ToolDefinition, ToolResult } from '../../tools/tool-definition.js';
import { errorResult } from '../../tools/tool-result.js';

/** The rollout-level part of a tool's context; each call gets its own abortSignal. */
export type ToolContextProvider = () => Omit<RolloutContext<unknown, unknown>, 'abortSignal'>;

export function environmentToolDefinitions(environment: Pick<Environment, 'tools'>, contextOf: ToolContextProvider): ToolDefinition[] {
  return environment.tools.map((tool) => toolDefinitionOf(tool, contextOf));
}

export function toolDefinitionOf(tool: EnvironmentTool, contextOf: ToolContextProvider): ToolDefinition {
  return {
    name: tool.name,
    title: tool.title ?? tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    annotations: {
      readOnlyHint: tool.annotations?.readOnlyHint ?? false,
      destructiveHint: tool.annotations?.destructiveHint ?? true,
      idempotentHint: tool.annotations?.idempotentHint ?? false,
      openWorldHint: tool.annotations?.openWorldHint ?? false,
    },
    // The context's sandbox leases lazily itself, so a tool that never touches it never costs a sandbox.
    needs: 'none',
    async handler(input, { abortSignal }): Promise<ToolResult> {
      let reply: EnvironmentToolReply;
      try {
        reply = await tool.execute(input, { ...contextOf(), abortSignal });
      } catch (error) {
        // The sandbox or pool failing under the tool is infrastructure; anything else the tool threw is the model's to read.
        if (CorralError.isInstance(error) && error.audience === 'infrastructure') throw error;
        if (abortSignal.aborted) throw error;
        return errorResult(CorralError.isInstance(error) ? error.code : 'TOOL_FAILED', error instanceof Error ? error.message : String(error));
      }
      return resultOf(reply);
    },
  };
}

/**
 * A text reply stays text, an error reply too: no structuredContent is made up for it, because Codex and Claude Code
 * show a result's structuredContent to the model in place of its text, and the same environment must look the same
 * to every agent. A structuredContent the author returned is kept as is.
 * With an outputSchema, a reply without structuredContent fails the schema check in invokeTool: the tool's bug,
 * reported loudly.
 */
function resultOf(reply: EnvironmentToolReply): ToolResult {
  if (typeof reply === 'string') return { text: reply };
  // An error reply keeps the author's text as the observation; `error` only names its code for the server's records.
  if (reply.isError && reply.structuredContent === undefined) return { text: reply.text, isError: true, error: { code: 'TOOL_FAILED', message: reply.text } };
  if (reply.isError) return { text: reply.text, structuredContent: reply.structuredContent, isError: true };
  return reply.structuredContent === undefined ? { text: reply.text } : { text: reply.text, structuredContent: reply.structuredContent };
}
