/** Small builders for ToolResults, so every tool renders errors and sessions the same way. */
import { CorralError } from '../core/errors.js';
import type { SandboxSession } from '../sandbox/session.js';
import type { ToolContext, ToolResult } from './tool-definition.js';

/** An isError result the model can read. `code` is a CorralError code or a tool-level code such as INVALID_ARGUMENTS. */
export function errorResult(code: string, message: string): ToolResult<never> {
  return { structuredContent: { error: { code, message } }, text: `Error (${code}): ${message}`, isError: true };
}

/** The session a sandbox tool was promised; its absence is a wiring bug in the server, not a model error. */
export function requireSession(context: ToolContext, toolName: string): SandboxSession {
  if (!context.session) throw new CorralError('SBX_ERR_UNAVAILABLE', `tool ${toolName} needs a sandbox but none was provided`);
  return context.session;
}

/** Appends a marker line when a stream was cut, so the model knows output is missing. */
export function withTruncationNote(text: string, truncated: boolean, streamName: string): string {
  return truncated ? `${text}\n[${streamName} truncated]` : text;
}
