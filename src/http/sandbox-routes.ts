/**
 * Explicit sandbox handles: POST /v1/sandboxes {env, ttl_ms?, env_vars?, files?} -> {id, env, mcpUrl, wsUrl,
 * expiresAt}; GET /v1/sandboxes lists the caller's; GET and DELETE /v1/sandboxes/:id; file routes in
 * sandbox-file-routes.ts. Sandboxes are leased lazily on the handle's first tool or file call (at once when files
 * are uploaded with the create) and released on DELETE, after the handle's idle TTL, or at shutdown. Another
 * principal's handle answers 404, like one that never existed. docs/sandbox-api.md shows each route with curl.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { HandleInfo } from '../mcp/tool-server-host.js';
import { replyToFileError, sandboxFileRoutes, sandboxNotFound } from './sandbox-file-routes.js';
import { type CreateSandboxBody, MIN_HANDLE_TTL_MS, createSandboxBodySchema, describeBodyError } from './sandbox-request-bodies.js';

export async function sandboxRoutes(app: FastifyInstance): Promise<void> {
  const { host, resolvePrincipal, quotas, config } = app.corral;
  const maxTtlMs = config.server.idleTtlMs;

  app.post('/v1/sandboxes', async (request, reply) => {
    const body = createSandboxBodySchema.safeParse(request.body ?? {});
    if (!body.success) return reply.code(400).send({ error: { ...describeBodyError(body.error), available: host.environmentNames() } });
    const environment = host.environment(body.data.env);
    if (!environment)
      return reply.code(400).send({
        error: { code: 'UNKNOWN_ENVIRONMENT', message: `env: no environment named ${body.data.env}`, fields: ['env'], available: host.environmentNames() },
      });
    const ttlMs = body.data.ttl_ms;
    if (ttlMs !== undefined && (ttlMs < MIN_HANDLE_TTL_MS || ttlMs > maxTtlMs)) {
      const message = `ttl_ms: ${ttlMs} is outside this server's bounds, ${MIN_HANDLE_TTL_MS} to ${maxTtlMs} ms (the server's idleTtlMs, set by --idle-ttl-ms or CORRAL_IDLE_TTL_MS)`;
      return reply.code(400).send({ error: { code: 'INVALID_TTL', message, fields: ['ttl_ms'], minTtlMs: MIN_HANDLE_TTL_MS, maxTtlMs } });
    }
    const principal = resolvePrincipal(request.headers, request.ip);
    quotas.check('maxHandlesPerPrincipal', principal, host.ownedBy(principal).handles);
    const info = host.createHandle(environment, principal, {
      ...(ttlMs ? { idleTtlMs: ttlMs } : {}),
      ...(body.data.env_vars ? { env: body.data.env_vars } : {}),
    });
    const failedUpload = await uploadFiles(info.id, principal, body.data.files ?? []);
    if (failedUpload) {
      await host.deleteHandle(info.id, principal);
      if (replyToFileError(reply, failedUpload.error, failedUpload.path)) return reply;
      throw failedUpload.error;
    }
    return reply.code(201).send(describe(request, host.describeHandle(info.id, principal) ?? info));
  });

  app.get('/v1/sandboxes', async (request) => ({
    sandboxes: host.listHandles(resolvePrincipal(request.headers, request.ip)).map((info) => describe(request, info)),
  }));

  app.get<{ Params: { id: string } }>('/v1/sandboxes/:id', async (request, reply) => {
    const info = host.describeHandle(request.params.id, resolvePrincipal(request.headers, request.ip));
    if (!info) return reply.code(404).send(sandboxNotFound(request.params.id));
    return describe(request, info);
  });

  app.delete<{ Params: { id: string } }>('/v1/sandboxes/:id', async (request, reply) => {
    const removed = await host.deleteHandle(request.params.id, resolvePrincipal(request.headers, request.ip));
    if (!removed) return reply.code(404).send(sandboxNotFound(request.params.id));
    return reply.code(204).send();
  });

  void app.register(sandboxFileRoutes);

  /** Writes the create's files in order; the first failure, with its path, or undefined. */
  async function uploadFiles(
    id: string,
    principal: string,
    files: NonNullable<CreateSandboxBody['files']>,
  ): Promise<{ path: string; error: unknown } | undefined> {
    for (const file of files) {
      try {
        await host.withHandleSession(id, principal, (session) =>
          session.files.write({ path: file.path, content: file.content, encoding: file.encoding, createParents: true }),
        );
      } catch (error) {
        return { path: file.path, error };
      }
    }
    return undefined;
  }
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
