/**
 * The ToolDefinition contract: one tool, described for a model, independent of MCP and of any backend.
 * The mcp/ layer registers these on an MCP server; tests and benchmarks may call `handler` directly.
 *
 * Errors go to their audience (STYLE principle 9): a failure *inside* the tool (non-zero exit, traceback,
 * missing file, workspace confinement, timeout) resolves to a result with `isError: true` that the model
 * can read; an infrastructure fault (a CorralError whose audience is 'infrastructure', e.g. the sandbox
 * died or the pool is exhausted) is thrown, so the rollout is marked errored rather than scored 0.
 */
import type { z } from 'zod';
import type { Capability, SandboxSession } from '../sandbox/session.js';

/** Wire version of the tool shapes below; bumped when an input or output schema changes incompatibly. */
export const TOOL_SCHEMA_VERSION = 1;

/** MCP tool annotations. All four are stated explicitly so no client falls back to its pessimistic defaults. */
export interface ToolAnnotations {
  /** The tool does not change its environment. */
  readOnlyHint: boolean;
  /** The tool may destroy or overwrite data (meaningful only when not read-only). */
  destructiveHint: boolean;
  /** Calling it twice with the same input has no further effect. */
  idempotentHint: boolean;
  /** The tool talks to an open world (the internet); sandboxes have no network, so false for ours. */
  openWorldHint: boolean;
}

export interface ToolContext {
  /** The restricted sandbox surface; present exactly when the tool's `needs` is 'sandbox'. */
  session?: SandboxSession;
  /** Fires when the caller cancels the call (client cancellation, disconnect, server shutdown). */
  abortSignal: AbortSignal;
}

export interface ToolResult<Output = Record<string, unknown>> {
  /**
   * Conforms to the tool's outputSchema when isError is not true. On an isError result it is the tool's own shape
   * (bash's exit code) or absent. Absent also for a tool without an outputSchema whose reply is text alone (an
   * environment's defineTool returning a string): clients then see the text and nothing made up beside it.
   */
  structuredContent?: Output | ToolErrorContent;
  /** What a model reads: the same facts as structuredContent, rendered as plain text. */
  text: string;
  isError?: boolean;
  /**
   * Set by errorResult: the code and message corral wrapped a failure in. Never sent as such; the text carries both,
   * and only a tool with an outputSchema also gets `{ error }` as structuredContent (the built-ins' documented shape).
   */
  error?: ToolErrorContent['error'];
}

export interface ToolErrorContent {
  error: { code: string; message: string };
}

export interface ToolDefinition<Input extends z.ZodObject = z.ZodObject, Output extends z.ZodObject = z.ZodObject> {
  /** snake_case, unique within an environment. */
  readonly name: string;
  readonly title: string;
  /** Written for a model: what it does, when to use it, what comes back, and its limits. */
  readonly description: string;
  readonly inputSchema: Input;
  /** Every built-in tool has one; an environment's own tool (defineTool) may have none, and then none is advertised. */
  readonly outputSchema?: Output;
  readonly annotations: ToolAnnotations;
  /** 'sandbox' tools get `context.session`; the server leases one lazily on their first call. */
  readonly needs: 'sandbox' | 'none';
  /** The session capability the tool uses; decides which kind of sandbox is leased (e.g. 'javascript' -> isolate). */
  readonly sandboxCapability?: Capability;
  /**
   * Runs one call with already-validated input. Resolves with isError for failures inside the tool;
   * may throw a CorralError of audience 'model' (converted to an isError result by invokeTool); any
   * other throw is an infrastructure fault.
   */
  handler(input: z.output<Input>, context: ToolContext): Promise<ToolResult<z.output<Output>>>;
}

/** Identity helper that keeps the precise input/output types while checking the shape. */
export function defineTool<Input extends z.ZodObject, Output extends z.ZodObject>(definition: ToolDefinition<Input, Output>): ToolDefinition<Input, Output> {
  return definition;
}
