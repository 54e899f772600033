/**
 * Builds one MCP server from ToolDefinitions (built-in and environment tools alike). McpServer.registerTool supplies
 * tools/list (JSON schemas, annotations, output schemas); tools/call is ours, because McpServer turns *every* thrown
 * error into an isError result, and infrastructure faults must reach the client as JSON-RPC errors instead (STYLE 9).
 * Each call's context gets the sandbox of its tool's capability from `sandboxSource`, leased lazily on first use,
 * and the call's scope (example, state, envArgs) from `scope`.
 */
import { type CallToolResult, McpServer, ProtocolError, ProtocolErrorCode, type RegisteredTool } from '@modelcontextprotocol/server';
import { CorralError } from '../core/errors.js';
import type { SandboxSession } from '../sandbox/session.js';
import { TOOL_SCHEMA_VERSION, type ToolDefinition, servedAnnotations } from '../tools/tool-definition.js';
import { lazyToolSandbox } from '../tools/tool-sandbox.js';
import type { ToolScope } from '../tools/tool-scope.js';
import { invokeTool } from '../tools/invoke-tool.js';
import { wireStructuredContent } from '../tools/tool-result.js';
import type { ToolSandboxes } from './lazy-sandboxes.js';
import { errorCodeOf, toProtocolError } from './protocol-error-mapping.js';
import { type SandboxKind, sandboxKindFor } from './sandbox-source.js';
import type { ToolCallObserver } from './tool-call-observer.js';
import { corralVersion } from '../core/project-root.js';
import {
  type CreateTaskResult,
  type ServerTasks,
  type TaskSupport,
  registerTaskMethods,
  requestDeclaresTasks,
  sessionDeclaresTasks,
  startToolTask,
} from './task-extension.js';

export const SERVER_NAME = 'corral';
export const SERVER_VERSION = corralVersion();
/** `_meta` key carrying each tool's schema version in tools/list. */
export const TOOL_SCHEMA_VERSION_META_KEY = 'dev.corral/tool-schema-version';

export interface CreateToolServerOptions {
  tools: readonly ToolDefinition[];
  sandboxSource: ToolSandboxes;
  /** The scope of each call (a rollout's example, state and envArgs), asked per call; default: unscoped. */
  scope?: () => ToolScope<unknown, unknown>;
  observer?: ToolCallObserver;
  /** Shown to clients at initialize; say what the environment is for. */
  instructions?: string;
  /** Called when a tools/call starts; the returned function when it ends (idle expiry of handles). */
  onCallStart?: () => () => void;
  /** The host's task store: given, the server speaks the tasks extension and long tool calls may become tasks. */
  tasks?: ServerTasks;
  /** The tool list can change while the server is connected (replaceTools): declared as tools.listChanged. */
  toolsListChanged?: boolean;
}

/**
 * Tools that run code may take minutes, so a client that declared the tasks extension gets a task for them;
 * the file tools answer in milliseconds and stay synchronous.
 */
export function taskSupportOf(tool: ToolDefinition): TaskSupport {
  return tool.capability === 'exec' || tool.capability === 'python' || tool.capability === 'javascript' ? 'optional' : 'forbidden';
}

/** A task-supporting call that ends this soon is answered directly (the SEP's immediate-result shortcut): no task to poll for an `ls`. */
export const IMMEDIATE_RESULT_WINDOW_MS = 1_000;

/** The SDK server (for the protocol's other methods), usable by anything that connects a transport. */
export function createToolServer(options: CreateToolServerOptions): McpServer {
  return buildToolServer(options).server;
}

/** The server and its tools/call without the transport, which the tool-server assembly offers as the fast path. */
export function buildToolServer(options: CreateToolServerOptions): {
  server: McpServer;
  callTool: DirectToolCall;
  replaceTools: (tools: readonly ToolDefinition[]) => void;
} {
  const server = new McpServer(
    { name: SERVER_NAME, version: SERVER_VERSION },
    { capabilities: { tools: { listChanged: options.toolsListChanged ?? false } }, ...(options.instructions ? { instructions: options.instructions } : {}) },
  );
  let byName = new Map<string, ToolDefinition>();
  let registered: RegisteredTool[] = [];
  const registerAll = (tools: readonly ToolDefinition[]) => {
    const next = new Map<string, ToolDefinition>();
    for (const tool of tools) {
      if (next.has(tool.name)) throw new Error(`two tools are named ${tool.name}`);
      next.set(tool.name, tool);
    }
    for (const entry of registered) entry.remove();
    registered = [...next.values()].map((tool) =>
      server.registerTool(
        tool.name,
        {
          title: tool.title ?? tool.name,
          description: tool.description,
          inputSchema: tool.inputSchema,
          ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
          annotations: { title: tool.title ?? tool.name, ...servedAnnotations(tool) },
          _meta: { [TOOL_SCHEMA_VERSION_META_KEY]: TOOL_SCHEMA_VERSION },
        },
        // Never runs: the tools/call handler below replaces McpServer's dispatcher.
        () => ({ content: [], isError: true }),
      ),
    );
    // Calls already running looked their tool up in the old map, so they finish on the definition they started with.
    byName = next;
  };
  registerAll(options.tools);
  /** A new tool list on a live server: one notifications/tools/list_changed for the whole swap, not one per tool. */
  const replaceTools = (tools: readonly ToolDefinition[]) => {
    const perTool = server.sendToolListChanged;
    server.sendToolListChanged = () => undefined;
    try {
      registerAll(tools);
    } finally {
      server.sendToolListChanged = perTool;
    }
    // A client gone mid-send is not this server's failure.
    if (server.isConnected()) server.server.sendToolListChanged().catch(() => undefined);
  };

  const callTool = async (params: ToolCallParams, abortSignal: AbortSignal): Promise<CallToolResult> => {
    const tool = byName.get(params.name);
    // Same answer McpServer gives: an unknown tool is protocol misuse, a JSON-RPC error.
    if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${params.name} not found`);
    const endCall = options.onCallStart?.();
    const startedAt = performance.now();
    try {
      const kind = sandboxKindFor(tool.capability);
      let session: SandboxSession | undefined;
      // Leased with the call's own signal, whatever the tool passes: a cancelled call stops waiting for the pool.
      const sandbox = lazyToolSandbox(async () => (session = await options.sandboxSource.session(kind, { abortSignal })));
      const result = await invokeTool(tool, params.arguments, { abortSignal, sandbox, ...(options.scope ? { scope: options.scope } : {}) });
      const errorCode = result.isError ? (result.error?.code ?? errorCodeOfResult(result.structuredContent)) : undefined;
      const structuredContent = wireStructuredContent(result, tool.outputSchema !== undefined);
      if (errorCode === 'SBX_ERR_TIMEOUT' && session) await failIfUnresponsive(options.sandboxSource, kind, session, tool.name);
      options.observer?.toolCallFinished({
        tool: tool.name,
        durationMs: performance.now() - startedAt,
        outcome: result.isError ? 'tool_error' : 'ok',
        ...(errorCode ? { errorCode } : {}),
      });
      return server.server.projectCallToolResult(
        {
          content: [{ type: 'text', text: result.text }],
          // None made up for a text-only reply or a wrapped error: some clients show structuredContent to the model instead of the text.
          ...(structuredContent === undefined ? {} : { structuredContent }),
          ...(result.isError ? { isError: true } : {}),
          // Our output schemas all have object roots, so there is no advertised non-object schema to wrap for.
        },
        undefined,
      );
    } catch (error) {
      options.observer?.toolCallFinished({ tool: tool.name, durationMs: performance.now() - startedAt, outcome: 'failed', errorCode: errorCodeOf(error) });
      throw toProtocolError(error);
    } finally {
      endCall?.();
    }
  };
  const tasks = options.tasks;
  if (tasks) registerTaskMethods(server, tasks);
  /** The call, or a task running it when the client declared the extension and the tool supports tasks. */
  const callToolOrTask = (params: ToolCallParams, abortSignal: AbortSignal, declaresTasks: boolean): Promise<CallToolResult | CreateTaskResult> => {
    const tool = byName.get(params.name);
    if (!tasks || !declaresTasks || !tool || taskSupportOf(tool) === 'forbidden') return callTool(params, abortSignal);
    return startToolTask(tasks, (control) => callTool(params, control.signal), { immediateWindowMs: IMMEDIATE_RESULT_WINDOW_MS });
  };
  server.server.setRequestHandler(
    'tools/call',
    (request, context) =>
      callToolOrTask(
        request.params,
        context.mcpReq.signal,
        tasks !== undefined && requestDeclaresTasks(server, context, request.params),
      ) as Promise<CallToolResult>,
  );
  // The fast path has no request context: only a 2025 session's own declaration can make its calls tasks.
  return {
    server,
    callTool: (params, abortSignal) => callToolOrTask(params, abortSignal, tasks !== undefined && sessionDeclaresTasks(server)),
    replaceTools,
  };
}

type ToolCallParams = { name: string; arguments?: Record<string, unknown> };

/** One tools/call, without the transport: what the server's handler runs (a CreateTaskResult when it became a task). */
export type DirectToolCall = (params: ToolCallParams, abortSignal: AbortSignal) => Promise<CallToolResult | CreateTaskResult>;

/**
 * A timeout is the model's to read only while the sandbox still works (a busy command). An agent that does not
 * answer its own ping is wedged: that is infrastructure, and the sandbox has been retired so the session's
 * next call gets a fresh one.
 */
async function failIfUnresponsive(sandboxes: ToolSandboxes, kind: SandboxKind, session: SandboxSession, toolName: string): Promise<void> {
  if (!(await sandboxes.retireIfUnresponsive?.(kind, session))) return;
  throw new CorralError(
    'SBX_ERR_UNRESPONSIVE',
    `${toolName} timed out and sandbox ${session.id} then failed its health check; it was taken out of service and its state is lost (the next call starts a fresh sandbox)`,
    {
      details: { sandboxId: session.id, tool: toolName },
    },
  );
}

/** An error the tool reports in its own shape counts as TOOL_FAILED, unless that shape is `{error: {code}}`. */
function errorCodeOfResult(content: unknown): string {
  const code = (content as { error?: { code?: unknown } } | undefined)?.error?.code;
  return typeof code === 'string' ? code : 'TOOL_FAILED';
}
