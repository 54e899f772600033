/**
 * Hosts tool servers for many clients at once and owns every sandbox lease they hold. Framework-neutral
 * (web Request/Response and message Transports), so the HTTP layer stays a thin adapter. Three ways to
 * bind sandboxes:
 * - /mcp/<env> with a 2025-era client: one set per MCP session (LegacySessionStore);
 * - /mcp/<env> with a 2026-era (sessionless) client: one set per request, released after it;
 * - /mcp/<env>/<handle> and ws with a handle: the handle's set, for clients of either era.
 */
import { type McpHttpHandler, type McpServer, type Transport, createMcpHandler, isLegacyRequest } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createToolServer, directToolCalls } from './create-tool-server.js';
import type { Environment, EnvironmentCatalog } from './environments.js';
import { LazySandboxes } from './lazy-sandboxes.js';
import { type FastToolCallMessage, LegacySessionStore } from './legacy-session-store.js';
import { type SandboxHandleRecord, SandboxHandleStore } from './sandbox-handle-store.js';
import type { SandboxSource } from './sandbox-source.js';
import type { SandboxSession } from '../sandbox/session.js';
import type { ToolCallObserver } from './tool-call-observer.js';

export interface ToolServerHostOptions {
  catalog: EnvironmentCatalog;
  sandboxSource: SandboxSource;
  /** Sandboxes of sessions and handles unused this long are released. */
  idleTtlMs: number;
  maxRequestBodySize: number;
  observer?: ToolCallObserver;
  /** Out-of-band SDK errors (rejected requests, transport faults); reporting only. */
  onError?: (error: Error) => void;
}

export interface ServedConnection {
  close(): Promise<void>;
}

export interface HandleInfo {
  id: string;
  environment: string;
  expiresAtMs: number;
}

export class ToolServerHost {
  private readonly legacySessions: LegacySessionStore;
  private readonly handles: SandboxHandleStore<McpHttpHandler>;
  /** Sandboxes owned by one sessionless request or one connection without a handle. */
  private readonly transient = new Set<LazySandboxes>();
  private readonly connections = new Set<ServedConnection>();
  private readonly sessionlessHandlers = new Map<string, McpHttpHandler>();
  private readonly sweepTimer: NodeJS.Timeout;

  constructor(private readonly options: ToolServerHostOptions) {
    this.legacySessions = new LegacySessionStore({
      sandboxes: () => new LazySandboxes(options.sandboxSource),
      server: (environment, sandboxes) => this.server(environment, sandboxes),
      maxRequestBodySize: options.maxRequestBodySize,
    });
    this.handles = new SandboxHandleStore(async (record) => {
      await record.extra.close().catch(() => undefined);
      await record.sandboxes.release();
    });
    this.sweepTimer = setInterval(() => void this.expireIdle(), Math.max(1_000, Math.min(options.idleTtlMs / 2, 30_000)));
    this.sweepTimer.unref();
  }

  environment(name: string): Environment | undefined {
    return this.options.catalog.get(name);
  }

  environmentNames(): string[] {
    return this.options.catalog.names();
  }

  /** /mcp/<env> without a handle. */
  async handleEnvironmentRequest(environment: Environment, request: Request, principal: string): Promise<Response> {
    // A session id exists only in the 2025 era: skip the body sniff (a clone and re-read of every request) then.
    const legacy = request.headers.has('mcp-session-id') || (await isLegacyRequest(request, undefined, { maxRequestBodySize: this.options.maxRequestBodySize }).catch(() => true));
    if (legacy) return this.legacySessions.handle(environment, request, principal);
    return this.sessionlessHandler(environment).fetch(request);
  }

  /**
   * The fast path for the hottest request, a tools/call on an existing 2025 session: runs the call without the
   * SDK's web-standard transport and returns the JSON-RPC response, or undefined to take the normal path.
   */
  fastToolCall(environment: Environment, sessionId: string, principal: string, message: FastToolCallMessage, abortSignal: AbortSignal): Promise<Record<string, unknown>> | undefined {
    return this.legacySessions.fastToolCall(environment, sessionId, principal, message, abortSignal);
  }

  /** `idleTtlMs` overrides the host's idle TTL for this handle; `env` goes into its general sandbox's spec. */
  createHandle(environment: Environment, principal: string, options: { idleTtlMs?: number; env?: Readonly<Record<string, string>> } = {}): HandleInfo {
    const sandboxes = new LazySandboxes(this.options.sandboxSource, options.env);
    const record = this.handles.add(
      environment,
      principal,
      sandboxes,
      () => createMcpHandler(() => this.server(environment, sandboxes), this.handlerOptions('stateless')),
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
  async withHandleSession<T>(id: string, principal: string, use: (session: SandboxSession) => Promise<T>, options: { abortSignal?: AbortSignal } = {}): Promise<{ value: T } | undefined> {
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

  /** /mcp/<env>/<handle>; undefined when the handle is unknown, another principal's, or of another environment. */
  async handleSandboxRequest(environment: Environment, handleId: string, request: Request, principal: string): Promise<Response | undefined> {
    const record = this.handles.get(handleId, principal);
    if (!record || record.environment !== environment) return undefined;
    record.sandboxes.touch();
    return record.extra.fetch(request);
  }

  /**
   * Serves MCP (either era) over a message transport such as a WebSocket. With a handle, calls use its
   * sandboxes; without, the connection gets its own. The caller calls close() when the connection ends
   * (idempotent). Undefined when the handle is not found.
   */
  serveConnection(environment: Environment, transport: Transport, options: { principal: string; handleId?: string }): ServedConnection | undefined {
    let sandboxes: LazySandboxes;
    if (options.handleId !== undefined) {
      const record = this.handles.get(options.handleId, options.principal);
      if (!record || record.environment !== environment) return undefined;
      sandboxes = record.sandboxes;
    } else {
      sandboxes = this.newSandboxes();
    }
    const ownsSandboxes = options.handleId === undefined;
    // serveStdio is the SDK's era-negotiating entry for any message stream, not only stdio.
    const served = serveStdio(() => this.server(environment, sandboxes), { transport, onerror: (error) => this.options.onError?.(error) });
    let closing: Promise<void> | undefined;
    const connection: ServedConnection = {
      close: () =>
        (closing ??= (async () => {
          this.connections.delete(connection);
          await served.close().catch(() => undefined);
          if (ownsSandboxes) await this.releaseTransient(sandboxes);
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
    return { legacySessions: this.legacySessions.size, handles: this.handles.size, transientSandboxSets: this.transient.size, connections: this.connections.size };
  }

  /** Ends every session, handle and connection and releases every lease. Idempotent. */
  async close(): Promise<void> {
    clearInterval(this.sweepTimer);
    await Promise.all([...this.connections].map((connection) => connection.close()));
    await Promise.all([...this.sessionlessHandlers.values()].map((handler) => handler.close().catch(() => undefined)));
    await this.legacySessions.closeAll();
    await this.handles.closeAll();
    await Promise.all([...this.transient].map((sandboxes) => this.releaseTransient(sandboxes)));
  }

  async expireIdle(): Promise<void> {
    const idleMs = this.options.idleTtlMs;
    await this.legacySessions.expireIdle(idleMs);
    await this.handles.expireIdle(idleMs);
  }

  private server(environment: Environment, sandboxes: LazySandboxes): McpServer {
    const server = createToolServer({
      tools: environment.tools,
      sandboxSource: sandboxes,
      instructions: environment.instructions,
      onCallStart: () => sandboxes.beginCall(),
      ...(this.options.observer ? { observer: this.options.observer } : {}),
    });
    if (environment.extendServer) {
      environment.extendServer(server);
      directToolCalls.delete(server); // its tools/call may no longer be ours
    }
    return server;
  }

  /** 2026-era requests on /mcp/<env>: a fresh server and sandbox set per request, released once the server closes. */
  private sessionlessHandler(environment: Environment): McpHttpHandler {
    let handler = this.sessionlessHandlers.get(environment.name);
    if (!handler) {
      handler = createMcpHandler(() => {
        const sandboxes = this.newSandboxes();
        const server = this.server(environment, sandboxes);
        const previous = server.server.onclose;
        server.server.onclose = () => {
          previous?.();
          void this.releaseTransient(sandboxes);
        };
        return server;
      }, this.handlerOptions('reject'));
      this.sessionlessHandlers.set(environment.name, handler);
    }
    return handler;
  }

  private handlerOptions(legacy: 'stateless' | 'reject') {
    return { legacy, maxRequestBodySize: this.options.maxRequestBodySize, onerror: (error: Error) => this.options.onError?.(error) };
  }

  private newSandboxes(): LazySandboxes {
    const sandboxes = new LazySandboxes(this.options.sandboxSource);
    this.transient.add(sandboxes);
    return sandboxes;
  }

  private async releaseTransient(sandboxes: LazySandboxes): Promise<void> {
    this.transient.delete(sandboxes);
    await sandboxes.release();
  }

  private info(record: SandboxHandleRecord<McpHttpHandler>): HandleInfo {
    return { id: record.id, environment: record.environment.name, expiresAtMs: record.sandboxes.expiresAtMs(record.idleTtlMs ?? this.options.idleTtlMs) };
  }
}
