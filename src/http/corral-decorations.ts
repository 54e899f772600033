/** What buildServer attaches to the fastify instance for its plugins (STYLE principle 14: shared deps as decorators). */
import type { CorralConfig } from '../config/load-config.js';
import type { ToolServerHost } from '../mcp/tool-server-host.js';
import type { CorralMetrics } from './corral-metrics.js';
import type { PrincipalResolver } from './principal.js';
import type { PrincipalQuotas } from './principal-quotas.js';

export interface CorralDecorations {
  config: CorralConfig;
  host: ToolServerHost;
  metrics: CorralMetrics;
  resolvePrincipal: PrincipalResolver;
  quotas: PrincipalQuotas;
}

declare module 'fastify' {
  interface FastifyInstance {
    corral: CorralDecorations;
  }
}
