/**
 * The shape of one conformance fixture tool. Unlike corral's ToolDefinitions, fixtures return raw MCP
 * results (image, audio and resource content) and talk back to the client mid-call (logs, progress,
 * sampling, elicitation), so they run against the SDK's ServerContext directly.
 */
import type { CallToolResult, InputRequiredResult, ServerContext, StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { TaskSupport } from '../mcp/task-extension.js';
import type { TaskControl } from '../mcp/task-store.js';

export interface FixtureTool {
  /** The name the conformance scenario calls, e.g. test_simple_text. */
  readonly name: string;
  readonly description: string;
  readonly inputSchema: StandardSchemaWithJSON;
  /** An InputRequiredResult asks a 2026-era client for input and a retry (SEP-2322 multi-round-trip requests). */
  run(args: Record<string, unknown>, context: ServerContext): Promise<CallToolResult | InputRequiredResult>;
  /**
   * Set on the tasks-extension fixtures (SEP-2663): with a client that declared the extension the call becomes a
   * task running `work`; `run` is then only the synchronous multi-round-trip phase before it (`undefined` from
   * `before` starts the task). Without the extension, `optional` tools run `work` inline and `required` ones refuse.
   */
  readonly task?: FixtureTaskWork;
}

export interface FixtureTaskWork {
  readonly support: Exclude<TaskSupport, 'forbidden'>;
  /** Input gathered synchronously before the task exists (SEP-2322); a result here answers the call without a task. */
  before?(args: Record<string, unknown>, context: ServerContext): Promise<InputRequiredResult | undefined>;
  /** `context` is the creating request's: read what it carried at once, it is not live after that request. */
  work(args: Record<string, unknown>, control: TaskControl, context: ServerContext): Promise<CallToolResult>;
}

export function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}
