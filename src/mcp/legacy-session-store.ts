/**
 * Sessionful Streamable HTTP for 2025-era clients on /mcp/<env>: one MCP server, transport and set of lazy
 * sandboxes per MCP session (Mcp-Session-Id). A session ends on DELETE, on idle expiry or on shutdown, and
 * its sandboxes are released then.
 */
import { randomUUID } from 'node:crypto';
import { type McpServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { directToolCalls } from './create-tool-server.js';
import type { Environment } from './environments.js';
import { toProtocolError } from './protocol-error-mapping.js';
import { EDGE_ERROR_CODES, jsonRpcErrorResponse } from './json-rpc-error-response.js';
import type { LazySandboxes } from './lazy-sandboxes.js';

/** A single JSON-RPC tools/call request, already checked by the caller. */
export interface FastToolCallMessage {
  id: string | number;
  params: { name: string; arguments?: Record<string, unknown> };
}

interface LegacySession {
  environment: Environment;
  principal: string;
  server: McpServer;
  transport: WebStandardStreamableHTTPServerTransport;
  sandboxes: LazySandboxes;
}

export interface LegacySessionFactory {
  sandboxes(): LazySandboxes;
  server(environment: Environment, sandboxes: LazySandboxes): McpServer;
  maxRequestBodySize: number;
}

export class LegacySessionStore {
  private readonly sessions = new Map<string, LegacySession>();

  constructor(private readonly factory: LegacySessionFactory) {}

  get size(): number {
    return this.sessions.size;
  }

  /** Open sessions of one principal, for its quota. */
  countOwnedBy(principal: string): number {
    let count = 0;
    for (const session of this.sessions.values()) if (session.principal === principal) count++;
    return count;
  }

  async handle(environment: Environment, request: Request, principal: string): Promise<Response> {
    const sessionId = request.headers.get('mcp-session-id');
    if (sessionId) {
      const session = this.sessions.get(sessionId);
      // Another environment's or another principal's session is indistinguishable from an expired one.
      if (!session || session.environment !== environment || session.principal !== principal) {
        return jsonRpcErrorResponse(404, EDGE_ERROR_CODES.sessionNotFound, 'Session not found');
      }
      session.sandboxes.touch();
      return session.transport.handleRequest(request);
    }
    if (request.method !== 'POST') return jsonRpcErrorResponse(400, EDGE_ERROR_CODES.requestRefused, 'Bad Request: Mcp-Session-Id header is required');
    return this.open(environment, request, principal);
  }

  /** See ToolServerHost.fastToolCall. Undefined when the session is unknown here or its tools/call is not ours. */
  fastToolCall(environment: Environment, sessionId: string, principal: string, message: FastToolCallMessage, abortSignal: AbortSignal): Promise<Record<string, unknown>> | undefined {
    const session = this.sessions.get(sessionId);
    if (!session || session.environment !== environment || session.principal !== principal) return undefined;
    const callTool = directToolCalls.get(session.server);
    if (!callTool) return undefined;
    session.sandboxes.touch();
    return callTool(message.params, abortSignal).then(
      (result) => ({ jsonrpc: '2.0', id: message.id, result }),
      (error: unknown) => {
        const fault = toProtocolError(error);
        return { jsonrpc: '2.0', id: message.id, error: { code: fault.code, message: fault.message, ...(fault.data === undefined ? {} : { data: fault.data }) } };
      },
    );
  }

  /** Starts a session for an initialize request; anything else gets the transport's own error and leaves nothing behind. */
  private async open(environment: Environment, request: Request, principal: string): Promise<Response> {
    const sandboxes = this.factory.sandboxes();
    const server = this.factory.server(environment, sandboxes);
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: this.factory.maxRequestBodySize,
      onsessioninitialized: (id) => void this.sessions.set(id, { environment, principal, server, transport, sandboxes }),
      onsessionclosed: (id) => this.close(id),
    });
    await server.connect(transport);
    const response = await transport.handleRequest(request);
    if (transport.sessionId === undefined) {
      await server.close();
      await sandboxes.release();
    }
    return response;
  }

  async close(sessionId: string): Promise<void> {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    this.sessions.delete(sessionId);
    await session.server.close().catch(() => undefined);
    await session.sandboxes.release();
  }

  async expireIdle(idleMs: number): Promise<number> {
    const idle = [...this.sessions.entries()].filter(([, session]) => session.sandboxes.idleFor(idleMs)).map(([id]) => id);
    await Promise.all(idle.map((id) => this.close(id)));
    return idle.length;
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.sessions.keys()].map((id) => this.close(id)));
  }
}
