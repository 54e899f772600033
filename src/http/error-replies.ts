import type { FastifyError, FastifyInstance } from 'fastify';
import { jsonRpcErrorBody } from './request-guards.js';

/**
 * Errors fastify raises before a route runs, answered as JSON-RPC error bodies so MCP clients can read
 * them: an oversized body is 413 (never a half-read request), unknown paths 404.
 */
export function addErrorReplies(app: FastifyInstance, bodyLimitBytes: number): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
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
