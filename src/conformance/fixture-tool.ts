/**
 * The shape of one conformance fixture tool. Unlike corral's ToolDefinitions, fixtures return raw MCP
 * results (image, audio and resource content) and talk back to the client mid-call (logs, progress,
 * sampling, elicitation), so they run against the SDK's ServerContext directly.
 */
import type { CallToolResult, ServerContext, StandardSchemaWithJSON } from '@modelcontextprotocol/server';

export interface FixtureTool {
  /** The name the conformance scenario calls, e.g. test_simple_text. */
  readonly name: string;
  readonly description: string;
  readonly inputSchema: StandardSchemaWithJSON;
  run(args: Record<string, unknown>, context: ServerContext): Promise<CallToolResult>;
}

export function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}
