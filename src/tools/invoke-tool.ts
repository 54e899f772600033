/**
 * Runs one ToolDefinition call with the error routing every transport shares (STYLE principle 9):
 * schema-invalid input and failures inside the tool become isError results the model can read and
 * correct; infrastructure faults propagate as thrown errors.
 */
import { z } from 'zod';
import { CorralError } from '../core/errors.js';
import type { SandboxSession } from '../sandbox/session.js';
import type { ToolDefinition, ToolResult } from './tool-definition.js';
import { errorResult } from './tool-result.js';

export interface InvokeToolOptions {
  abortSignal: AbortSignal;
  /** Leases (or reuses) the sandbox for tools that need one; called only after the input is valid. */
  openSession?: () => Promise<SandboxSession>;
}

export async function invokeTool(tool: ToolDefinition, rawInput: unknown, options: InvokeToolOptions): Promise<ToolResult> {
  const parsed = tool.inputSchema.safeParse(rawInput ?? {});
  // Reported as a tool result, as the MCP spec (2025-11-25) and the SDK's McpServer do: the model can fix its arguments.
  if (!parsed.success) return errorResult('INVALID_ARGUMENTS', `invalid arguments for tool ${tool.name}: ${z.prettifyError(parsed.error)}`);
  // Opening the sandbox is infrastructure: its failures propagate rather than becoming tool results.
  const session = tool.needs === 'sandbox' && options.openSession ? await options.openSession() : undefined;
  let result: ToolResult;
  try {
    result = await tool.handler(parsed.data, session ? { session, abortSignal: options.abortSignal } : { abortSignal: options.abortSignal });
  } catch (error) {
    if (CorralError.isInstance(error) && error.audience === 'model') return errorResult(error.code, error.message);
    throw error;
  }
  if (!result.isError && tool.outputSchema) {
    const checked = tool.outputSchema.safeParse(result.structuredContent);
    // A tool that breaks its own output schema is our bug; surfacing it loudly beats sending a client bad data.
    if (!checked.success) throw new Error(`tool ${tool.name} produced output that does not match its outputSchema: ${z.prettifyError(checked.error)}`);
  }
  return result;
}
