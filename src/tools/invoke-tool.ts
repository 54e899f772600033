/**
 * Runs one ToolDefinition call with the error routing every transport shares (STYLE principle 9), for built-in and
 * environment tools alike: schema-invalid input and failures inside the tool become isError results the model can
 * read and correct; infrastructure faults (and caller faults, which the model cannot fix) propagate as thrown errors.
 */
import { z } from 'zod';
import { CorralError } from '../core/errors.js';
import type { ToolDefinition, ToolReply, ToolResult } from './tool-definition.js';
import { errorResult } from './tool-result.js';
import { type ToolSandbox, unavailableToolSandbox } from './tool-sandbox.js';
import { type ToolScope, unscopedToolScope } from './tool-scope.js';

export interface InvokeToolOptions {
  abortSignal: AbortSignal;
  /** The sandbox of the tool's capability, leasing lazily; without it, a tool that uses a sandbox fails as infrastructure. */
  sandbox?: ToolSandbox;
  /** The call's scope, asked once the input is valid (state() may refuse, e.g. an absent example); default: unscoped. */
  scope?: () => ToolScope<unknown, unknown>;
}

export async function invokeTool(tool: ToolDefinition, rawInput: unknown, options: InvokeToolOptions): Promise<ToolResult> {
  const parsed = tool.inputSchema.safeParse(rawInput ?? {});
  // Reported as a tool result, as the MCP spec (2025-11-25) and the SDK's McpServer do: the model can fix its arguments.
  if (!parsed.success) return errorResult('INVALID_ARGUMENTS', `invalid arguments for tool ${tool.name}: ${z.prettifyError(parsed.error)}`);
  const { abortSignal } = options;
  let reply: ToolReply;
  try {
    const scope = options.scope ? options.scope() : unscopedToolScope();
    reply = await tool.execute(parsed.data, { ...scope, sandbox: options.sandbox ?? unavailableToolSandbox(tool.name), abortSignal });
  } catch (error) {
    // A cancelled call ends as the cancellation, not as a result; the sandbox or pool failing under the tool is infrastructure.
    if (abortSignal.aborted) throw error;
    if (CorralError.isInstance(error) && error.audience !== 'model') throw error;
    return errorResult(CorralError.isInstance(error) ? error.code : 'TOOL_FAILED', error instanceof Error ? error.message : String(error));
  }
  const result = resultOf(reply);
  if (!result.isError && tool.outputSchema) {
    const checked = tool.outputSchema.safeParse(result.structuredContent);
    // A tool that breaks its own output schema is its author's bug; surfacing it loudly beats sending a client bad data.
    if (!checked.success) throw new Error(`tool ${tool.name} produced output that does not match its outputSchema: ${z.prettifyError(checked.error)}`);
  }
  return result;
}

/**
 * A text reply stays text, an error reply too: no structuredContent is made up for it, because Codex and Claude Code
 * show a result's structuredContent to the model in place of its text, and the same tool must look the same to every
 * agent. An error reply without its own structuredContent or code is named TOOL_FAILED for the server's records.
 */
function resultOf(reply: ToolReply): ToolResult {
  if (typeof reply === 'string') return { text: reply };
  if (reply.isError && reply.structuredContent === undefined && reply.error === undefined) {
    return { text: reply.text, isError: true, error: { code: 'TOOL_FAILED', message: reply.text } };
  }
  return reply;
}
