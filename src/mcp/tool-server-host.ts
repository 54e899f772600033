/**
 * Hosts tool servers for many clients at once and owns every sandbox lease they hold. Framework-neutral
 * (web Request/Response and message Transports), so the HTTP layer stays a thin adapter. Three ways to
 * bind sandboxes:
 * - /mcp/<env> with a 2025-era client: one set per MCP session (LegacySessionStore);
 * - /mcp/<env> with a 2026-era (sessionless) client: one set per request, released after it;
 * - /mcp/<env>/<handle> and ws with a handle: the handle's set, for clients of either era.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { type McpHttpHandler, type McpServer, type Transport, createMcpHandler, isLegacyRequest } from '@modelcontextprotocol/server';
import type { SandboxSession } from '../sandbox/session.js';
import { type HandleRecord, HandleStore } from './handle-store.js';
import { LazySandboxes } from './lazy-sandboxes.js';
import { LegacySessionStore } from './legacy-session-store.js';
import { serveMessageStream } from './message-stream-serving.js';
import type { SandboxSource } from './sandbox-source.js';
import { TaskStatusStreams, mayBeTaskStatusListen } from './task-status-stream.js';
import { TaskStore, type TaskStoreLimits } from './task-store.js';
import type { ToolCatalog, ToolCatalogEntry } from './tool-catalog.js';
import type { ToolCallObserver } from './tool-call-observer.js';
import { type SandboxBinding, type ToolCallMessage, type ToolCallReply, type ToolServerAssembly, assembleToolServer } from './tool-server-assembly.js';

export interface ToolServerHostOptions {
  catalog: ToolCatalog;
  sandboxSource: SandboxSource;
  /** Sandboxes of sessions and handles unused this long are released. */
  idleTtlMs: number;
  maxRequestBodySize: number;
  observer?: ToolCallObserver;
  /** Out-of-band SDK errors (rejected requests, transport faults); reporting only. */
  onError?: (error: Error) => void;
  /** Bounds of the tasks extension's store (ttl, per-principal caps); defaults in task-store.ts. */
  taskLimits?: Partial<TaskStoreLimits>;
}

export interface ServedConnection {
  close(): Promise<void>;
}

/** What a handle keeps besides its sandboxes: the SDK handler for its URL and a server for the fast path. */
interface HandleServing {
  handler: McpHttpHandler;
  fastPath: ToolServerAssembly;
}

/** Which sandboxes a fast tools/call runs on: a 2025 session's (/mcp/<env>) or a handle's (/mcp/<env>/<handle>). */
export type FastCallTarget = { sessionId: string } | { handleId: string };

export interface HandleInfo {
  id: string;
  environment: string;
  expiresAtMs: number;
}

export class ToolServerHost {
  private readonly legacySessions: LegacySessionStore;
  private readonly handles: HandleStore<HandleServing>;
  /** Servers that own their sandboxes for one sessionless request, and the sandbox sets of connections without a handle. */
  private readonly transient = new Set<{ release(): Promise<void> }>();
  private readonly connections = new Set<ServedConnection>();
  private readonly sessionlessHandlers = new Map<string, McpHttpHandler>();
  private readonly sweepTimer: NodeJS.Timeout;
  /** Every task of every server built here, owned by principals (a sessionless request's task outlives its server). */
  readonly tasks: TaskStore;
  /** subscriptions/listen streams of task status notifications, which the SDK's listen router does not serve. */
  private readonly taskStreams: TaskStatusStreams;
  /** The principal of the sessionless request being served, for the server the SDK's handler builds for it. */
  private readonly requestPrincipal = new AsyncLocalStorage<string>();

  constructor(private readonly options: ToolServerHostOptions) {
    this.tasks = new TaskStore(options.taskLimits);
    this.taskStreams = new TaskStatusStreams(this.tasks);
    this.legacySessions = new LegacySessionStore({
      assemble: (entry, principal) => this.assemble(entry, { source: options.sandboxSource }, principal, { followReloads: true }),
      maxRequestBodySize: options.maxRequestBodySize,
    });
    this.handles = new HandleStore(async (record) => {
      await record.extra.handler.close().catch(() => undefined);
      await record.extra.fastPath.close();
      await record.sandboxes.release();
    });
    this.sweepTimer = setInterval(() => void this.expireIdle(), Math.max(1_000, Math.min(options.idleTtlMs / 2, 30_000)));
    this.sweepTimer.unref();
  }

  /** The catalog entry served at /mcp/<name> and /ws/<name>. */
  environment(name: string): ToolCatalogEntry | undefined {
    return this.options.catalog.get(name);
  }

  environmentNames(): string[] {
    return this.options.catalog.names();
  }

  /** /mcp/<env> without a handle. */
  async handleEnvironmentRequest(entry: ToolCatalogEntry, request: Request, principal: string): Promise<Response> {
    const taskStream = mayBeTaskStatusListen(request) ? await this.taskStreams.serve(request, principal) : undefined;
    if (taskStream) return taskStream;
    // A session id exists only in the 2025 era: skip the body sniff (a clone and re-read of every request) then.
    const legacy =
      request.headers.has('mcp-session-id') ||
      (await isLegacyRequest(request, undefined, { maxRequestBodySize: this.options.maxRequestBodySize }).catch(() => true));
    if (legacy) return this.legacySessions.handle(entry, request, principal);
    return this.requestPrincipal.run(principal, () => this.sessionlessHandler(entry).fetch(request));
  }

  /**
   * The fast path for the hottest request, a plain tools/call on a 2025 session or a handle: runs the call
   * without the SDK's web-standard transport and returns the JSON-RPC response, or undefined to take the
   * normal path (unknown session or handle, another principal's, or an entry whose tools/call is not ours).
   */
  fastToolCall(
    entry: ToolCatalogEntry,
    target: FastCallTarget,
    principal: string,
    message: ToolCallMessage,
    abortSignal: AbortSignal,
  ): Promise<ToolCallReply> | undefined {
    if ('sessionId' in target) return this.legacySessions.fastToolCall(entry, target.sessionId, principal, message, abortSignal);
    const record = this.handleOf(entry, target.handleId, principal);
    return record?.extra.fastPath.callTool?.(message, abortSignal);
  }

  /** `idleTtlMs` overrides the host's idle TTL for this handle; `env` goes into its general sandbox's spec. */
  createHandle(entry: ToolCatalogEntry, principal: string, options: { idleTtlMs?: number; env?: Readonly<Record<string, string>> } = {}): HandleInfo {
    const sandboxes = new LazySandboxes(this.options.sandboxSource, options.env);
    const shared = { shared: sandboxes };
    const record = this.handles.add(
      entry,
      principal,
      sandboxes,
      () => ({
        // Stateless: the SDK builds a server per request, each over the handle's sandboxes.
        handler: createMcpHandler(() => this.assemble(entry, shared, principal).server, this.handlerOptions(entry, 'stateless')),
        // Never connected: only its tools/call runs, for requests the fast path recognises.
        fastPath: this.assemble(entry, shared, principal, { followReloads: true }),
      }),
      options.idleTtlMs,
    );
    return this.info(record);
  }

  /** The principal's live handles, oldest first. */
  listHandles(principal: string): HandleInfo[] {
    return this.handles.listOwnedBy(principal).map((record) => this.info(record));
  }

  /**
   * Runs `use` with the handle's general sandbox session (leased on first use), counted as a call so idle expiry
   * waits for it. Undefined when the handle is not found (or is another principal's).
   */
  async withHandleSession<T>(
    id: string,
    principal: string,
    use: (session: SandboxSession) => Promise<T>,
    options: { abortSignal?: AbortSignal } = {},
  ): Promise<{ value: T } | undefined> {
    const record = this.handles.get(id, principal);
    if (!record) return undefined;
    const endCall = record.sandboxes.beginCall();
    try {
      return { value: await use(await record.sandboxes.session('general', options)) };
    } finally {
      endCall();
    }
  }

  describeHandle(id: string, principal: string): HandleInfo | undefined {
    const record = this.handles.get(id, principal);
    return record ? this.info(record) : undefined;
  }

  deleteHandle(id: string, principal: string): Promise<boolean> {
    return this.handles.remove(id, principal);
  }

  /** /mcp/<env>/<handle>; undefined when the handle is unknown, another principal's, or of another entry. */
  async handleSandboxRequest(entry: ToolCatalogEntry, handleId: string, request: Request, principal: string): Promise<Response | undefined> {
    const record = this.handleOf(entry, handleId, principal);
    if (!record) return undefined;
    record.sandboxes.touch();
    const taskStream = mayBeTaskStatusListen(request) ? await this.taskStreams.serve(request, principal) : undefined;
    return taskStream ?? record.extra.handler.fetch(request);
  }

  /**
   * Serves MCP (either era) over a message transport such as a WebSocket. With a handle, calls use its
   * sandboxes; without, the connection gets its own. The caller calls close() when the connection ends
   * (idempotent). Undefined when the handle is not found.
   */
  serveConnection(entry: ToolCatalogEntry, transport: Transport, options: { principal: string; handleId?: string }): ServedConnection | undefined {
    let sandboxes: SandboxBinding = { source: this.options.sandboxSource };
    if (options.handleId !== undefined) {
      const record = this.handleOf(entry, options.handleId, options.principal);
      if (!record) return undefined;
      sandboxes = { shared: record.sandboxes };
    }
    const served = serveMessageStream({
      entry,
      sandboxes,
      observer: this.options.observer,
      transport,
      onError: (error) => this.options.onError?.(error),
      tasks: { store: this.tasks, owner: options.principal },
    });
    // Counted with the transient sets while it owns its sandboxes, so close() and stats() see it.
    const owned = 'source' in sandboxes ? served.sandboxes : undefined;
    if (owned) this.transient.add(owned);
    let closing: Promise<void> | undefined;
    const connection: ServedConnection = {
      close: () =>
        (closing ??= (async () => {
          this.connections.delete(connection);
          await served.close();
          if (owned) this.transient.delete(owned);
        })()),
    };
    this.connections.add(connection);
    return connection;
  }

  /** What one principal holds, for per-principal quotas. */
  ownedBy(principal: string): { legacySessions: number; handles: number } {
    return { legacySessions: this.legacySessions.countOwnedBy(principal), handles: this.handles.countOwnedBy(principal) };
  }

  stats(): { legacySessions: number; handles: number; transientSandboxSets: number; connections: number } {
    return {
      legacySessions: this.legacySessions.size,
      handles: this.handles.size,
      transientSandboxSets: this.transient.size,
      connections: this.connections.size,
    };
  }

  /** Ends every session, handle and connection and releases every lease. Idempotent. */
  async close(): Promise<void> {
    clearInterval(this.sweepTimer);
    // First, so servers waiting on their tasks' work can release their sandboxes.
    this.taskStreams.closeAll();
    this.tasks.close();
    await Promise.all([...this.connections].map((connection) => connection.close()));
    await Promise.all([...this.sessionlessHandlers.values()].map((handler) => handler.close().catch(() => undefined)));
    await this.legacySessions.closeAll();
    await this.handles.closeAll();
    await Promise.all([...this.transient].map((owner) => this.releaseTransient(owner)));
  }

  async expireIdle(): Promise<void> {
    const idleMs = this.options.idleTtlMs;
    await this.legacySessions.expireIdle(idleMs);
    await this.handles.expireIdle(idleMs);
  }

  /**
   * Every server this host builds, for any binding, is assembled here: same observer, same extensions, `principal`'s
   * tasks. `followReloads`: a long-lived server, which takes a reloaded entry's new tools and tells its client.
   */
  private assemble(entry: ToolCatalogEntry, sandboxes: SandboxBinding, principal: string, options: { followReloads?: boolean } = {}): ToolServerAssembly {
    const reloads =
      entry.reloads && entry.changeEvents ? { events: entry.changeEvents, current: entry.reloads.current, follow: options.followReloads ?? false } : undefined;
    return assembleToolServer({
      tools: entry.tools,
      scopeFor: entry.scopeFor,
      instructions: entry.instructions,
      extendServer: entry.extendServer,
      observer: this.options.observer,
      sandboxes,
      tasks: { store: this.tasks, owner: principal },
      reloads,
    });
  }

  private handleOf(entry: ToolCatalogEntry, handleId: string, principal: string): HandleRecord<HandleServing> | undefined {
    const record = this.handles.get(handleId, principal);
    return record && record.entry === entry ? record : undefined;
  }

  /** 2026-era requests on /mcp/<env>: a fresh server and sandbox set per request, released once the server closes. */
  private sessionlessHandler(entry: ToolCatalogEntry): McpHttpHandler {
    let handler = this.sessionlessHandlers.get(entry.name);
    if (!handler) {
      handler = createMcpHandler(() => this.transientServer(entry), this.handlerOptions(entry, 'reject'));
      this.sessionlessHandlers.set(entry.name, handler);
    }
    return handler;
  }

  private transientServer(entry: ToolCatalogEntry): McpServer {
    // Always inside handleEnvironmentRequest's run(); a server built anywhere else sees no one's tasks.
    const principal = this.requestPrincipal.getStore() ?? `unattributed:${randomUUID()}`;
    const assembly = this.assemble(entry, { source: this.options.sandboxSource }, principal);
    const owner = { release: () => assembly.close() };
    this.transient.add(owner);
    const previous = assembly.server.server.onclose;
    assembly.server.server.onclose = () => {
      previous?.();
      void this.releaseTransient(owner);
    };
    return assembly.server;
  }

  private handlerOptions(entry: ToolCatalogEntry, legacy: 'stateless' | 'reject') {
    return {
      legacy,
      maxRequestBodySize: this.options.maxRequestBodySize,
      onerror: (error: Error) => this.options.onError?.(error),
      ...(entry.changeEvents ? { bus: entry.changeEvents } : {}),
    };
  }

  private async releaseTransient(owner: { release(): Promise<void> }): Promise<void> {
    this.transient.delete(owner);
    await owner.release();
  }

  private info(record: HandleRecord<HandleServing>): HandleInfo {
    return { id: record.id, environment: record.entry.name, expiresAtMs: record.sandboxes.expiresAtMs(record.idleTtlMs ?? this.options.idleTtlMs) };
  }
}
