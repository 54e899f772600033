/**
 * Explicit sandbox handles: POST /v1/sandboxes {env} -> {id, mcpUrl, wsUrl, expiresAt}; GET and DELETE
 * /v1/sandboxes/:id. Sandboxes are leased lazily on the handle's first tool call and released on DELETE,
 * after idle expiry, or at shutdown. Another principal's handle answers 404, like one that never existed.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { HandleInfo } from '../mcp/tool-server-host.js';

const createBodySchema = z.object({ env: z.string().min(1) }).strict();

export async function sandboxRoutes(app: FastifyInstance): Promise<void> {
  const { host, resolvePrincipal, quotas } = app.corral;

  app.post('/v1/sandboxes', async (request, reply) => {
    const body = createBodySchema.safeParse(request.body ?? {});
    if (!body.success) return reply.code(400).send({ error: { code: 'INVALID_BODY', message: 'send {"env": "<environment>"}', available: host.environmentNames() } });
    const environment = host.environment(body.data.env);
    if (!environment) return reply.code(400).send({ error: { code: 'UNKNOWN_ENVIRONMENT', message: `no environment named ${body.data.env}`, available: host.environmentNames() } });
    const principal = resolvePrincipal(request.headers, request.ip);
    quotas.check('maxHandlesPerPrincipal', principal, host.ownedBy(principal).handles);
    const info = host.createHandle(environment, principal);
    return reply.code(201).send(describe(request, info));
  });

  app.get<{ Params: { id: string } }>('/v1/sandboxes/:id', async (request, reply) => {
    const info = host.describeHandle(request.params.id, resolvePrincipal(request.headers, request.ip));
    if (!info) return reply.code(404).send(notFound(request.params.id));
    return describe(request, info);
  });

  app.delete<{ Params: { id: string } }>('/v1/sandboxes/:id', async (request, reply) => {
    const removed = await host.deleteHandle(request.params.id, resolvePrincipal(request.headers, request.ip));
    if (!removed) return reply.code(404).send(notFound(request.params.id));
    return reply.code(204).send();
  });
}

function describe(request: FastifyRequest, info: HandleInfo) {
  const origin = `${request.protocol}://${request.host}`;
  const path = `${info.environment}/${info.id}`;
  return {
    id: info.id,
    env: info.environment,
    mcpUrl: `${origin}/mcp/${path}`,
    wsUrl: `${origin.replace(/^http/, 'ws')}/ws/${path}`,
    expiresAt: new Date(info.expiresAtMs).toISOString(),
  };
}

function notFound(id: string) {
  return { error: { code: 'SANDBOX_NOT_FOUND', message: `no sandbox ${id} (it expired, was deleted, or belongs to another client)` } };
}
