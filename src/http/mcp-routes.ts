/**
 * Streamable HTTP endpoints. /mcp/:env serves 2025-era clients one sandbox set per MCP session and
 * 2026-era clients one per request; /mcp/:env/:id serves clients of either era with the handle's
 * sandboxes. All protocol work happens in the SDK via ToolServerHost; this plugin only adapts fastify. A plain
 * tools/call on either takes the assembly's fast path (see fast-tool-call.ts) when the host recognises its target.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { jsonRpcErrorBody } from '../mcp/json-rpc-errors.js';
import type { ToolCatalogEntry } from '../mcp/tool-catalog.js';
import { fastToolCallRequest } from './fast-tool-call.js';
import { acceptRawTextBodies } from './request-body-parsing.js';
import { disconnectSignal, toWebRequest } from './web-exchange.js';

const METHODS = ['GET', 'POST', 'DELETE'];

export async function mcpRoutes(app: FastifyInstance): Promise<void> {
  const { host, resolvePrincipal, quotas } = app.corral;
  // Bodies reach the SDK as raw text, so malformed JSON gets a JSON-RPC parse error and a wrong media type the SDK's 415.
  acceptRawTextBodies(app);

  /**
   * Answers a recognised plain tools/call without the SDK transport. False: take the normal path. (A boolean, not
   * the reply: a FastifyReply is thenable, so an async function returning one resolves to undefined.)
   */
  async function answeredFast(entry: ToolCatalogEntry, request: FastifyRequest, reply: FastifyReply, principal: string, handleId?: string): Promise<boolean> {
    const fast = fastToolCallRequest(request, handleId);
    const answered = fast && quotas.runAs(principal, () => host.fastToolCall(entry, fast.target, principal, fast.message, disconnectSignal(reply)));
    if (!fast || !answered) return false;
    const body = JSON.stringify(await answered);
    if ('sessionId' in fast.target) reply.header('mcp-session-id', fast.target.sessionId);
    void reply.header('content-type', 'application/json').send(body);
    return true;
  }

  app.route<{ Params: { env: string } }>({
    method: METHODS,
    url: '/mcp/:env',
    handler: async (request, reply) => {
      const environment = host.environment(request.params.env);
      if (!environment)
        return reply.code(404).send(jsonRpcErrorBody(`no environment named ${request.params.env}; available: ${host.environmentNames().join(', ')}`));
      const principal = resolvePrincipal(request.headers, request.ip);
      if (await answeredFast(environment, request, reply, principal)) return reply;
      // An initialize without a session id opens a 2025-era session: held as pending until the store counts it.
      const releaseSession = opensSession(request) ? quotas.take('maxSessionsPerPrincipal', principal, host.ownedBy(principal).legacySessions) : undefined;
      try {
        return reply.send(await quotas.runAs(principal, () => host.handleEnvironmentRequest(environment, toWebRequest(request, reply), principal)));
      } finally {
        releaseSession?.();
      }
    },
  });

  app.route<{ Params: { env: string; id: string } }>({
    method: METHODS,
    url: '/mcp/:env/:id',
    handler: async (request, reply) => {
      const environment = host.environment(request.params.env);
      if (!environment) return reply.code(404).send(jsonRpcErrorBody(`no environment named ${request.params.env}`));
      const principal = resolvePrincipal(request.headers, request.ip);
      if (await answeredFast(environment, request, reply, principal, request.params.id)) return reply;
      const response = await quotas.runAs(principal, () => host.handleSandboxRequest(environment, request.params.id, toWebRequest(request, reply), principal));
      if (!response) return reply.code(404).send(jsonRpcErrorBody(`no sandbox ${request.params.id} for environment ${request.params.env}`));
      return reply.send(response);
    },
  });
}

function opensSession(request: FastifyRequest): boolean {
  if (request.method !== 'POST' || request.headers['mcp-session-id'] !== undefined || typeof request.body !== 'string' || !request.body.includes('initialize'))
    return false;
  try {
    const message = JSON.parse(request.body) as { method?: unknown } | null;
    return typeof message === 'object' && message !== null && !Array.isArray(message) && message.method === 'initialize';
  } catch {
    return false;
  }
}
