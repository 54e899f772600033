import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CorralError } from '../core/errors.js';
import { jsonRpcErrorBody } from '../mcp/json-rpc-errors.js';

/** Refusals of the HTTP edge that carry a corral code: their status and JSON-RPC error code. */
const EDGE_REFUSALS: Partial<Record<string, { status: number; jsonRpcCode: number }>> = {
  HTTP_ERR_QUOTA_EXCEEDED: { status: 429, jsonRpcCode: -32000 },
  HTTP_ERR_JSON_TOO_DEEP: { status: 400, jsonRpcCode: -32600 },
  HTTP_ERR_UNSUPPORTED_ENCODING: { status: 415, jsonRpcCode: -32000 },
};

/**
 * Errors fastify raises before a route runs, answered as JSON-RPC error bodies so MCP clients can read
 * them: an oversized body is 413 (never a half-read request), unknown paths 404. Edge refusals with a corral code
 * (a full quota 429, JSON nested too deep 400, an unknown Content-Encoding 415) carry the code, as JSON-RPC on MCP
 * routes and as {error} like every other /v1 refusal elsewhere. An infrastructure CorralError under /v1 (a sandbox
 * that cannot be created while preparing rollouts or a handle) is 503 when transient, else 500, with its code.
 */
export function addErrorReplies(app: FastifyInstance, bodyLimitBytes: number): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const refusal = CorralError.isInstance(error) ? EDGE_REFUSALS[error.code] : undefined;
    if (refusal && CorralError.isInstance(error)) return replyEdgeRefusal(request, reply, error, refusal);
    // An infrastructure failure under a /v1 route keeps its code, so a trainer can tell a retry (503) from a fault (500).
    if (CorralError.isInstance(error) && error.audience === 'infrastructure' && !isMcpPath(request.url)) {
      request.log.error({ err: error, code: error.code }, 'request failed');
      return reply.code(error.transient ? 503 : 500).send({ error: { code: error.code, message: error.message, transient: error.transient } });
    }
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return reply.code(413).send(jsonRpcErrorBody(`Request body too large: the limit is ${bodyLimitBytes} bytes`));
    }
    const status = error.statusCode ?? 500;
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    const message = status >= 500 ? 'Internal server error' : error.message;
    return reply.code(status).send(jsonRpcErrorBody(message, status >= 500 ? -32603 : -32600));
  });
  app.setNotFoundHandler((request, reply) => reply.code(404).send(jsonRpcErrorBody(`Not found: ${request.method} ${request.url.split('?')[0]}`)));
}

function replyEdgeRefusal(request: FastifyRequest, reply: FastifyReply, error: CorralError, refusal: { status: number; jsonRpcCode: number }) {
  reply.code(refusal.status);
  if (isMcpPath(request.url)) return reply.send(jsonRpcErrorBody(error.message, refusal.jsonRpcCode, { code: error.code, ...error.details }));
  return reply.send({ error: { code: error.code, message: error.message, ...error.details } });
}

/** /mcp/<env>[/<id>] and an episode's /v1/episodes/<id>/mcp speak JSON-RPC. */
function isMcpPath(url: string): boolean {
  const path = url.split('?')[0] ?? '';
  return path.startsWith('/mcp/') || /^\/v1\/episodes\/[^/]+\/mcp$/.test(path);
}

/**
 * Errors fastify answers without the error handler: a path parameter longer than maxParamLength (414) and
 * a malformed URL (400). Passed as the frameworkErrors option.
 */
export function frameworkErrorReply(error: FastifyError, _request: unknown, reply: unknown): void {
  const status = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 414 : (error.statusCode ?? 400);
  const message = status === 414 ? 'URI too long: a path segment exceeds the length limit' : error.message;
  void (reply as FastifyReply).code(status).send(jsonRpcErrorBody(message, -32600));
}

/**
 * Errors Node raises on the socket before any request exists: a request that timed out (408), headers too
 * large (431) or unparsable (400). Passed as the clientErrorHandler option. Written only when no response
 * has started on the socket; the socket is closed either way.
 */
export function clientErrorReply(error: Error & { code?: string }, socket: Socket): void {
  const status = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
  const message = status === 408 ? 'Request timeout: the request did not arrive in time' : status === 431 ? 'Request headers too large' : 'Bad request';
  const responseStarted = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (socket.writable && !responseStarted && error.code !== 'ECONNRESET') {
    const body = JSON.stringify(jsonRpcErrorBody(message, -32600));
    socket.end(
      `HTTP/1.1 ${status} ${status === 408 ? 'Request Timeout' : status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
