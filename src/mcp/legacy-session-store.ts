/**
 * Sessionful Streamable HTTP for 2025-era clients on /mcp/<env>: one MCP server, transport and set of lazy
 * sandboxes per MCP session (Mcp-Session-Id). A session ends on DELETE, when its client dropped its GET stream
 * and sent nothing more, on idle expiry or on shutdown, and its sandboxes are released then.
 */
import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { EDGE_ERROR_CODES, jsonRpcErrorResponse } from './json-rpc-errors.js';
import type { ToolCatalogEntry } from './tool-catalog.js';
import type { ToolCallMessage, ToolCallReply, ToolServerAssembly } from './tool-server-assembly.js';

interface LegacySession {
  entry: ToolCatalogEntry;
  principal: string;
  assembly: ToolServerAssembly;
  transport: WebStandardStreamableHTTPServerTransport;
  /** Standalone GET streams open now. */
  openStreams: number;
}

/**
 * A session whose client closed its standalone GET stream and then sends nothing for this long is closed, as a
 * DELETE would: a closing client drops the stream first, and its DELETE can die on the way (issue 21: under
 * 1,000 concurrent sessions, connections evicted at the cap left sessions until the idle TTL). A client that
 * lost the stream to a network fault reconnects it within this (the SDK retries after 1 s, then 1.5 s).
 */
const ABANDONED_STREAM_GRACE_MS = 5_000;

/**
 * The SSE keep-alive comment's interval on a session's streams (the SDK's default is 15 s). undici (fetch, the SDK's
 * client) closes the connection of a stream its client aborted only when the next bytes arrive, so the server hears
 * of a dropped stream at the next keep-alive: measured at 15 s with the default, which held a closed session 20 s.
 */
const STREAM_KEEP_ALIVE_MS = 2_000;

export interface LegacySessionOptions {
  /** A server with sandboxes of its own, for one new session of `principal`. */
  assemble(entry: ToolCatalogEntry, principal: string): ToolServerAssembly;
  maxRequestBodySize: number;
}

export class LegacySessionStore {
  private readonly sessions = new Map<string, LegacySession>();

  constructor(private readonly options: LegacySessionOptions) {}

  get size(): number {
    return this.sessions.size;
  }

  /** Open sessions of one principal, for its quota. */
  countOwnedBy(principal: string): number {
    let count = 0;
    for (const session of this.sessions.values()) if (session.principal === principal) count++;
    return count;
  }

  async handle(entry: ToolCatalogEntry, request: Request, principal: string): Promise<Response> {
    const sessionId = request.headers.get('mcp-session-id');
    if (sessionId) {
      const session = this.find(entry, sessionId, principal);
      if (!session) return jsonRpcErrorResponse(404, EDGE_ERROR_CODES.sessionNotFound, 'Session not found');
      session.assembly.sandboxes.touch();
      const response = await session.transport.handleRequest(request);
      // Only a stream the transport opened counts: a refused GET (409 for a second stream) ends at once.
      if (request.method === 'GET' && response.ok && response.body) this.watchStream(sessionId, session, request.signal);
      return response;
    }
    if (request.method !== 'POST') return jsonRpcErrorResponse(400, EDGE_ERROR_CODES.requestRefused, 'Bad Request: Mcp-Session-Id header is required');
    return this.open(entry, request, principal);
  }

  /** The session's fast path; undefined when the session is unknown here or its tools/call is not ours. */
  fastToolCall(
    entry: ToolCatalogEntry,
    sessionId: string,
    principal: string,
    message: ToolCallMessage,
    abortSignal: AbortSignal,
  ): Promise<ToolCallReply> | undefined {
    return this.find(entry, sessionId, principal)?.assembly.callTool?.(message, abortSignal);
  }

  /** Another entry's or another principal's session is indistinguishable from an expired one. */
  private find(entry: ToolCatalogEntry, sessionId: string, principal: string): LegacySession | undefined {
    const session = this.sessions.get(sessionId);
    return session && session.entry === entry && session.principal === principal ? session : undefined;
  }

  /** Starts a session for an initialize request; anything else gets the transport's own error and leaves nothing behind. */
  private async open(entry: ToolCatalogEntry, request: Request, principal: string): Promise<Response> {
    const assembly = this.options.assemble(entry, principal);
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: this.options.maxRequestBodySize,
      keepAliveMs: STREAM_KEEP_ALIVE_MS,
      onsessioninitialized: (id) => void this.sessions.set(id, { entry, principal, assembly, transport, openStreams: 0 }),
      onsessionclosed: (id) => this.close(id),
    });
    await assembly.server.connect(transport);
    const response = await transport.handleRequest(request);
    if (transport.sessionId === undefined) await assembly.close();
    return response;
  }

  /** Counts the GET stream while it is open; once the client drops it, closes the session if nothing follows. */
  private watchStream(sessionId: string, session: LegacySession, clientGone: AbortSignal): void {
    session.openStreams++;
    const dropped = () => {
      session.openStreams--;
      this.closeIfAbandoned(sessionId, session, ABANDONED_STREAM_GRACE_MS);
    };
    if (clientGone.aborted) dropped();
    else clientGone.addEventListener('abort', dropped, { once: true });
  }

  /**
   * After `waitMs`, closes a session with no stream open and nothing done for the grace period. Work that followed
   * the drop (a call still running, a request after it) postpones the check instead of cancelling it: a client that
   * made one last call and left must not keep its session until the idle TTL.
   */
  private closeIfAbandoned(sessionId: string, session: LegacySession, waitMs: number): void {
    setTimeout(() => {
      if (this.sessions.get(sessionId) !== session || session.openStreams > 0) return;
      const sandboxes = session.assembly.sandboxes;
      if (sandboxes.idleFor(ABANDONED_STREAM_GRACE_MS)) void this.close(sessionId);
      else this.closeIfAbandoned(sessionId, session, Math.max(sandboxes.expiresAtMs(ABANDONED_STREAM_GRACE_MS) - Date.now(), 1_000));
    }, waitMs).unref();
  }

  async close(sessionId: string): Promise<void> {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    this.sessions.delete(sessionId);
    await session.assembly.close();
  }

  async expireIdle(idleMs: number): Promise<number> {
    const idle = [...this.sessions.entries()].filter(([, session]) => session.assembly.sandboxes.idleFor(idleMs)).map(([id]) => id);
    await Promise.all(idle.map((id) => this.close(id)));
    return idle.length;
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.sessions.keys()].map((id) => this.close(id)));
  }
}
