/**
 * The one tool contract, for corral's built-in tools (python, bash, files, js, wiki) and environment authors' tools
 * alike: `defineTool({ name, description, inputSchema, outputSchema?, annotations?, capability?, execute })`. Every
 * transport serves a ToolDefinition the same way (mcp/create-tool-server.ts): in process for `corral eval`, at
 * /mcp/<env> on the server, over stdio and WebSockets. Independent of MCP and of any backend.
 *
 * `execute` receives its sandbox from its context (`context.sandbox`, leased on first use, of the kind the tool's
 * `capability` names: 'javascript' is a V8 isolate, anything else the general sandbox) and the scope of the call
 * (the example, the rollout's state, the environment arguments).
 *
 * Errors go to their audience (STYLE principle 9), one rule for every tool (tools/invoke-tool.ts): a failure inside
 * the tool (a reply with isError, an Error thrown, a CorralError of audience 'model') is a result with isError that
 * the model reads; a CorralError of audience 'infrastructure' or 'caller' (SBX_/POOL_ codes from the sandbox, a
 * misconfiguration) is thrown on, so the rollout is errored, never scored 0; so is anything thrown after the call
 * was cancelled.
 */
import type { z } from 'zod';
import type { Capability } from '../sandbox/session.js';
import type { ToolSandbox } from './tool-sandbox.js';
import type { ToolScope } from './tool-scope.js';

/** Wire version of the built-in tool shapes; bumped when an input or output schema changes incompatibly. */
export const TOOL_SCHEMA_VERSION = 1;

/** MCP tool annotations, as served: all four are stated so no client falls back to its pessimistic defaults. */
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

export interface ToolContext<State = Record<string, unknown>, Args = Record<string, unknown>> extends ToolScope<State, Args> {
  /** The sandbox of the tool's capability, leased on the first method called; infrastructure faults throw CorralErrors. */
  readonly sandbox: ToolSandbox;
  /** Fires when this call is cancelled (client cancellation, the call's timeout, disconnect, the rollout ending). */
  readonly abortSignal: AbortSignal;
}

export interface ToolErrorContent {
  error: { code: string; message: string };
}

export interface ToolResult<Output = Record<string, unknown>> {
  /**
   * Conforms to the tool's outputSchema when isError is not true. On an isError result it is the tool's own shape
   * (bash's exit code) or absent. Absent also for a tool without an outputSchema whose reply is text alone: clients
   * then see the text and nothing made up beside it.
   */
  structuredContent?: Output | ToolErrorContent;
  /** What a model reads: the same facts as structuredContent, rendered as plain text. */
  text: string;
  isError?: boolean;
  /**
   * The code and message corral wrapped a failure in (errorResult, an error reply without structuredContent). Never
   * sent as such; the text carries both, and only a tool with an outputSchema also gets `{ error }` as structuredContent.
   */
  error?: ToolErrorContent['error'];
}

/** What `execute` returns: plain text, or a result (structuredContent is checked against outputSchema when not isError). */
export type ToolReply<Output = Record<string, unknown>> = string | ToolResult<Output>;

export interface ToolDefinition<Input extends z.ZodObject = z.ZodObject, State = unknown, Args = unknown, Output extends z.ZodObject = z.ZodObject> {
  /** 1-64 letters, digits, _ or -; unique among an environment's tools and its toolsets' tools. */
  readonly name: string;
  /** Shown by clients; the name when absent. */
  readonly title?: string;
  /** Written for a model: what it does, when to use it, what comes back, and its limits. */
  readonly description: string;
  readonly inputSchema: Input;
  /** Every built-in tool has one; without it none is advertised and a text reply carries no structuredContent. */
  readonly outputSchema?: Output;
  /** Unset hints take the cautious value: not read-only, destructive, not idempotent, closed world. */
  readonly annotations?: Partial<ToolAnnotations>;
  /**
   * The sandbox capability the tool uses: 'javascript' makes `context.sandbox` a V8 isolate, anything else (or none)
   * the general sandbox. Tools that run code ('exec', 'python', 'javascript') may become MCP tasks.
   */
  readonly capability?: Capability;
  /**
   * Runs one call with validated input. Method syntax on purpose: a tool typed for its environment's State and Args
   * still fits `ToolDefinition`.
   */
  execute(input: z.output<Input>, context: ToolContext<State, Args>): Promise<ToolReply<z.output<Output>>> | ToolReply<z.output<Output>>;
}

/** Checks the shape and keeps the precise types; `State` and `Args` are inferred from a typed `context` parameter. */
export function defineTool<Input extends z.ZodObject, State = unknown, Args = unknown, Output extends z.ZodObject = z.ZodObject>(
  tool: ToolDefinition<Input, State, Args, Output>,
): ToolDefinition<Input, State, Args, Output> {
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(tool.name)) throw new TypeError(`defineTool: tool name ${JSON.stringify(tool.name)} must be 1-64 letters, digits, _ or -`);
  if (typeof tool.execute !== 'function') throw new TypeError(`defineTool(${tool.name}): execute must be a function`);
  return Object.freeze({ ...tool });
}

/** The annotations a tool is served with: its own hints over the cautious defaults. */
export function servedAnnotations(tool: Pick<ToolDefinition, 'annotations'>): ToolAnnotations {
  return {
    readOnlyHint: tool.annotations?.readOnlyHint ?? false,
    destructiveHint: tool.annotations?.destructiveHint ?? true,
    idempotentHint: tool.annotations?.idempotentHint ?? false,
    openWorldHint: tool.annotations?.openWorldHint ?? false,
  };
}
