/**
 * The one way a tool server is put together, whatever carries it (HTTP sessions and handles, WebSocket, stdio,
 * the in-memory pairs of `corral eval`): the MCP server over a set of lazily leased sandboxes, the metrics
 * observer, the entry's extra registrations, the transport-free tools/call (the fast path), and close().
 */
import type { CallToolResult, McpServer, ServerEventBus } from '@modelcontextprotocol/server';
import type { ToolDefinition } from '../tools/tool-definition.js';
import type { ToolScope } from '../tools/tool-scope.js';
import { buildToolServer } from './create-tool-server.js';
import { type JsonRpcErrorBody, jsonRpcFaultBody } from './json-rpc-errors.js';
import { LazySandboxes } from './lazy-sandboxes.js';
import type { SandboxSource } from './sandbox-source.js';
import type { CreateTaskResult, ServerTasks } from './task-extension.js';
import type { TaskStore } from './task-store.js';
import type { ServerExtensionContext } from './tool-catalog.js';
import type { ToolCallObserver } from './tool-call-observer.js';

/** A single JSON-RPC tools/call request, already checked by whoever recognised it. */
export interface ToolCallMessage {
  id: string | number;
  params: { name: string; arguments?: Record<string, unknown> };
}

export type ToolCallReply = { jsonrpc: '2.0'; id: string | number; result: CallToolResult | CreateTaskResult } | JsonRpcErrorBody;

/** Answers one tools/call without any transport: the same result, errors and metrics as the server's own handler. */
export type FastToolCall = (message: ToolCallMessage, abortSignal: AbortSignal) => Promise<ToolCallReply>;

/**
 * Where the server's sandboxes come from: leased for this server alone (close() releases them), or the set of a
 * handle that several servers share over its lifetime (the handle's owner releases it).
 */
export type SandboxBinding = { source: SandboxSource; env?: Readonly<Record<string, string>> } | { shared: LazySandboxes };

export interface ToolServerAssemblyOptions {
  tools: readonly ToolDefinition[];
  /** The scope of each call over this server's sandbox set (ToolCatalogEntry.scopeFor); default: unscoped. */
  scopeFor?: ((sandboxes: LazySandboxes) => ToolScope<unknown, unknown>) | undefined;
  sandboxes: SandboxBinding;
  observer?: ToolCallObserver | undefined;
  /** Shown to clients at initialize. */
  instructions?: string | undefined;
  /** Registrations beyond `tools`, before the server connects; such a server may no longer own tools/call. */
  extendServer?: ((server: McpServer, context: ServerExtensionContext) => void) | undefined;
  /** The host's task store and whose tasks this server's requests see: given, the server speaks the tasks extension. */
  tasks?: { store: TaskStore; owner: string } | undefined;
  /**
   * The tool list can change (an operator reload, ToolCatalogEntry.reloads): every server declares tools.listChanged.
   * `follow` is for long-lived servers (a 2025 session, a handle's fast path): on each tools_list_changed published
   * on `events` they take the entry's current tools and tell their client. Per-request servers are built afresh.
   */
  reloads?: { events: ServerEventBus; current(): readonly ToolDefinition[]; follow: boolean } | undefined;
}

export interface ToolServerAssembly {
  readonly server: McpServer;
  readonly sandboxes: LazySandboxes;
  /** The fast path; undefined when an extension may have replaced tools/call (then only the server answers it). */
  readonly callTool: FastToolCall | undefined;
  /** Closes the server and releases the sandboxes it owns. Idempotent. */
  close(): Promise<void>;
}

export function assembleToolServer(options: ToolServerAssemblyOptions): ToolServerAssembly {
  const binding = options.sandboxes;
  const ownsSandboxes = 'source' in binding;
  const sandboxes = ownsSandboxes ? new LazySandboxes(binding.source, binding.env) : binding.shared;
  // Tasks outlive the request that started them: sandboxes this server owns are released only after their work ends.
  const runningTasks = new Set<Promise<void>>();
  const tasks: ServerTasks | undefined = options.tasks && {
    ...options.tasks,
    holdUntil: (ended) => {
      runningTasks.add(ended);
      void ended.finally(() => runningTasks.delete(ended));
    },
  };
  const scopeFor = options.scopeFor;
  const { server, callTool, replaceTools } = buildToolServer({
    tools: options.tools,
    sandboxSource: sandboxes,
    ...(scopeFor ? { scope: () => scopeFor(sandboxes) } : {}),
    onCallStart: () => sandboxes.beginCall(),
    ...(options.observer ? { observer: options.observer } : {}),
    ...(options.instructions ? { instructions: options.instructions } : {}),
    ...(tasks ? { tasks } : {}),
    ...(options.reloads ? { toolsListChanged: true } : {}),
  });
  options.extendServer?.(server, tasks ? { tasks } : {});
  const reloads = options.reloads;
  const unfollow = reloads?.follow
    ? reloads.events.subscribe((event) => {
        if (event.kind === 'tools_list_changed') replaceTools(reloads.current());
      })
    : undefined;
  let closing: Promise<void> | undefined;
  return {
    server,
    sandboxes,
    callTool: options.extendServer
      ? undefined
      : (message, abortSignal) => {
          sandboxes.touch();
          return callTool(message.params, abortSignal).then(
            (result) => ({ jsonrpc: '2.0' as const, id: message.id, result }),
            (error: unknown) => jsonRpcFaultBody(message.id, error),
          );
        },
    close: () =>
      // Deferred a tick, so a close() reached again from the server's own onclose finds this promise.
      (closing ??= Promise.resolve().then(async () => {
        unfollow?.();
        await server.close().catch(() => undefined);
        if (!ownsSandboxes) return;
        await Promise.all([...runningTasks]);
        await sandboxes.release();
      })),
  };
}
