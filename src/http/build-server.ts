/**
 * The fastify app factory (STYLE principle 13): builds every route and hook and never listens; the CLI
 * listens, tests use inject() or listen({port: 0}). app.close() ends every MCP session, handle and
 * WebSocket and releases every sandbox lease; the pool itself belongs to the caller.
 */
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { CorralConfig } from '../config/load-config.js';
import type { ToolCatalog } from '../mcp/tool-catalog.js';
import type { SandboxPoolView, SandboxSource } from '../mcp/sandbox-source.js';
import { ToolServerHost } from '../mcp/tool-server-host.js';
import './corral-decorations.js';
import { type AdmissionGauges, CorralMetrics } from './corral-metrics.js';
import { addErrorReplies } from './error-replies.js';
import { healthRoute } from './health-route.js';
import { mcpRoutes } from './mcp-routes.js';
import { type ReadinessProbe, readinessRoute } from './readiness-route.js';
import { metricsRoute } from './metrics-route.js';
import { type PrincipalResolver, principalResolverFor } from './principal.js';
import { addRequestBodyParsing } from './request-body-parsing.js';
import { addRequestGuardHooks } from './request-guard-hooks.js';
import { addConnectionLimits, principalQuotas, serverLimitOptions } from './server-limits.js';
import type { EpisodeService } from './episodes-contract.js';
import { episodesRoute } from './episodes-route.js';
import type { RolloutService } from './rollouts-contract.js';
import { rolloutsRoute } from './rollouts-route.js';
import { sandboxRoutes } from './sandbox-routes.js';
import { addWebSocketEndpoint } from './websocket-endpoint.js';
import { viewerRoutes } from '../viewer/viewer-routes.js';

export interface ServerDependencies {
  /** The tool catalog served at /mcp/<name> and /ws/<name>. */
  environments: ToolCatalog;
  sandboxSource: SandboxSource;
  /** Pool counts for /metrics; omitted, the pool gauges stay empty. */
  pool?: Pick<SandboxPoolView, 'stats'>;
  /** The rollout API's admission level for /metrics (the controller shared by requests without max_concurrency); omitted, no admission gauges. */
  admission?: () => AdmissionGauges | undefined;
  /** Who owns a handle, session, episode or task; defaults to principalResolverFor(config.server). */
  resolvePrincipal?: PrincipalResolver;
  logger?: FastifyServerOptions['logger'];
  /** Runs rollouts for POST /v1/rollouts (the CLI builds it from the runner); omitted, that route does not exist. */
  rollouts?: RolloutService;
  /** Episodes for trainers running their own agent loop (/v1/episodes); omitted, those routes do not exist. */
  episodes?: EpisodeService;
  /** Backend state for /readyz; omitted, /readyz answers ready with backend 'unknown'. */
  readiness?: ReadinessProbe;
  /**
   * The run viewer's folder, served at /view (page and /view/api) behind the same guards; rollout requests keep
   * their series in it. Omitted, no /view and no series.
   */
  viewerRoot?: string;
}

export function buildServer(config: CorralConfig, dependencies: ServerDependencies): FastifyInstance {
  const app = Fastify({
    bodyLimit: config.server.bodyLimitBytes,
    logger: dependencies.logger ?? false,
    forceCloseConnections: 'idle',
    ...serverLimitOptions(config.server),
  });
  // hostStats runs only at scrape time, after `host` exists.
  const metrics: CorralMetrics = new CorralMetrics({
    poolStats: () => dependencies.pool?.stats() ?? [],
    hostStats: (): Record<string, number> => host.stats(),
    ...(dependencies.admission ? { admission: dependencies.admission } : {}),
  });
  const quotas = principalQuotas(config.server, metrics);
  const host: ToolServerHost = new ToolServerHost({
    catalog: dependencies.environments,
    sandboxSource: quotas.limitLeases(dependencies.sandboxSource),
    idleTtlMs: config.server.idleTtlMs,
    maxRequestBodySize: config.server.bodyLimitBytes,
    observer: metrics,
    onError: (error) => app.log.debug({ err: error }, 'mcp request rejected'),
  });
  app.decorate('corral', { config, host, metrics, quotas, resolvePrincipal: dependencies.resolvePrincipal ?? principalResolverFor(config.server) });
  addConnectionLimits(app, config.server, metrics);

  addRequestGuardHooks(app, config.server);
  addErrorReplies(app, config.server.bodyLimitBytes);
  addRequestBodyParsing(app, config.server.bodyLimitBytes);
  void app.register(healthRoute);
  void app.register(readinessRoute, dependencies.readiness ? { probe: dependencies.readiness } : {});
  void app.register(metricsRoute);
  void app.register(sandboxRoutes);
  void app.register(mcpRoutes);
  // Series (a trainer's reward curves) are kept in the viewer's folder, so /view shows them.
  if (dependencies.rollouts)
    void app.register(rolloutsRoute, { service: dependencies.rollouts, ...(dependencies.viewerRoot ? { seriesRoot: dependencies.viewerRoot } : {}) });
  if (dependencies.episodes) void app.register(episodesRoute, { service: dependencies.episodes });
  if (dependencies.viewerRoot) void app.register(viewerRoutes, { prefix: '/view', root: dependencies.viewerRoot });
  addWebSocketEndpoint(app, dependencies.episodes ? { episodes: dependencies.episodes } : {});
  // preClose, not onClose: open SSE streams and sockets must end before the HTTP server can finish closing.
  app.addHook('preClose', async () => host.close());
  return app;
}
