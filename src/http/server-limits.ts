/**
 * Where the server limits of docs/security.md are wired: Node's request timeout (slow bodies and headers), the
 * JSON bodies of refusals Node and fastify make before any route runs, connection caps (derived from the
 * descriptor limit in connection-shares.ts) and backpressure (connection-limits.ts), and the per-principal quotas
 * (principal-quotas.ts).
 */
import type { ServerOptions } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { ServerConfig } from './request-guards.js';
import { ConnectionLimits } from './connection-limits.js';
import { connectionCaps } from './connection-shares.js';
import type { CorralMetrics } from './corral-metrics.js';
import { clientErrorReply, frameworkErrorReply } from './error-replies.js';
import { PrincipalQuotas } from './principal-quotas.js';

/** Node checks request and header timeouts on this interval; a fraction of the timeout keeps the cut close to it. */
const MAX_TIMEOUT_CHECK_INTERVAL_MS = 5_000;

export interface ServerLimitOptions {
  requestTimeout: number;
  http: ServerOptions;
  frameworkErrors: typeof frameworkErrorReply;
  clientErrorHandler: typeof clientErrorReply;
}

export function serverLimitOptions(server: ServerConfig): ServerLimitOptions {
  const timeoutMs = server.requestTimeoutMs;
  return {
    requestTimeout: timeoutMs,
    http: {
      requestTimeout: timeoutMs,
      headersTimeout: Math.min(60_000, timeoutMs),
      connectionsCheckingInterval: Math.max(25, Math.min(MAX_TIMEOUT_CHECK_INTERVAL_MS, Math.floor(timeoutMs / 4))),
    },
    frameworkErrors: frameworkErrorReply,
    clientErrorHandler: clientErrorReply,
  };
}

export function principalQuotas(server: ServerConfig, metrics: CorralMetrics): PrincipalQuotas {
  return new PrincipalQuotas(
    {
      maxSessionsPerPrincipal: server.maxSessionsPerPrincipal,
      maxHandlesPerPrincipal: server.maxHandlesPerPrincipal,
      maxLeasedSandboxesPerPrincipal: server.maxLeasedSandboxesPerPrincipal,
      maxRolloutRequestsPerPrincipal: server.maxRolloutRequestsPerPrincipal,
      maxEpisodesPerPrincipal: server.maxEpisodesPerPrincipal,
    },
    (quota) => metrics.refused(quota),
  );
}

export function addConnectionLimits(app: FastifyInstance, server: ServerConfig, metrics: CorralMetrics): ConnectionLimits {
  const caps = connectionCaps(server);
  const limits = new ConnectionLimits({ ...server, ...caps }, (reason) => metrics.refused(reason));
  limits.attach(app.server);
  app.server.once('listening', () => app.log.info({ connectionCaps: caps }, 'connection caps'));
  return limits;
}
