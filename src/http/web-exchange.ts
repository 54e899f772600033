/**
 * Converts between fastify's request and the web-standard Request the MCP SDK's HTTP entries take. The
 * body arrives as the raw text fastify read (so the SDK, not fastify, judges malformed JSON), and the
 * Request's signal fires when the client goes away, which cancels the MCP call it was waiting for.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Hop-by-hop, length and encoding headers describe the original connection and bytes, not the rebuilt Request (its body is decoded text). */
const DROPPED_HEADERS = new Set(['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade']);

export function toWebRequest(request: FastifyRequest, reply: FastifyReply): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || DROPPED_HEADERS.has(name)) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD' && request.body !== undefined && request.body !== null;
  const body = hasBody ? (typeof request.body === 'string' ? request.body : JSON.stringify(request.body)) : undefined;
  const disconnected = disconnectSignal(reply);
  const webRequest = new Request(new URL(request.url, `${request.protocol}://${request.host || 'localhost'}`), {
    method: request.method,
    headers,
    ...(body === undefined ? {} : { body }),
    signal: disconnected,
  });
  // undici's Request follows `signal` through a WeakRef: once nothing holds the Request (a GET stream's handler
  // keeps only its signal), a garbage collection cuts the link and request.signal never fires. The connection holds
  // `disconnected`, so this listener keeps the Request reachable exactly as long as its client can still leave.
  disconnected.addEventListener('abort', () => webRequest.signal, { once: true });
  return webRequest;
}

/** Fires when the client goes away before the response finished (request 'close' fires on every request). */
export function disconnectSignal(reply: FastifyReply): AbortSignal {
  const disconnected = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) disconnected.abort();
  });
  return disconnected.signal;
}
