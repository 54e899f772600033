/** Small builders for ToolResults, so every tool renders errors and sessions the same way. */
import type { ToolResult } from './tool-definition.js';

/**
 * An isError result the model can read. `code` is a CorralError code or a tool-level code such as INVALID_ARGUMENTS.
 * Code and message are in the text; no structuredContent is made up here, because Codex and Claude Code show a
 * result's structuredContent in place of its text, and every agent must see the same observation. The server adds
 * `{ error }` as structuredContent only for a tool that declares an outputSchema (errorStructuredContent).
 */
export function errorResult(code: string, message: string): ToolResult<never> {
  return { text: `Error (${code}): ${message}`, isError: true, error: { code, message } };
}

/**
 * What a result sends as structuredContent: the tool's own, else `{ error }` for an error that corral wrapped in a
 * tool with an outputSchema (documented for the built-ins), else none. MCP makes it optional on isError results.
 */
export function wireStructuredContent(result: ToolResult, hasOutputSchema: boolean): Record<string, unknown> | undefined {
  if (result.structuredContent !== undefined) return result.structuredContent as Record<string, unknown>;
  return result.isError && result.error && hasOutputSchema ? { error: result.error } : undefined;
}

/** Appends a marker line when a stream was cut, so the model knows output is missing. */
export function withTruncationNote(text: string, truncated: boolean, streamName: string): string {
  return truncated ? `${text}\n[${streamName} truncated]` : text;
}
