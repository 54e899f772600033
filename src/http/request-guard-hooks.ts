import type { FastifyInstance } from 'fastify';
import { allowedHostnames, allowedOriginHostnames, checkBearerToken, checkHostAndOrigin, jsonRpcErrorBody, type ServerConfig } from './request-guards.js';

/** Routes a load balancer must reach without credentials. */
const UNAUTHENTICATED_PATHS = new Set(['/healthz', '/readyz']);

/** Host/Origin (403) and bearer token (401) on every request, as a root-level hook so no route can skip it. */
export function addRequestGuardHooks(app: FastifyInstance, server: ServerConfig): void {
  const hosts = allowedHostnames(server);
  const origins = allowedOriginHostnames(server);
  app.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const refusal = checkHostAndOrigin(request.headers, hosts, origins) ?? (UNAUTHENTICATED_PATHS.has(path) ? undefined : checkBearerToken(request.headers, server.token));
    if (!refusal) return;
    if (refusal.status === 401) reply.header('www-authenticate', 'Bearer');
    return reply.code(refusal.status).send(jsonRpcErrorBody(refusal.message));
  });
}
