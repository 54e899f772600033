/**
 * A real corral server on port 0 with chosen server limits (short timeouts, small caps and quotas), for the
 * server-limits-*.test.ts files. Sandboxes come from a real pool on the process backend.
 */
import type { FastifyInstance } from 'fastify';
import type { Socket } from 'node:net';
import { loadConfig } from '../../src/config/load-config.js';
import type { ServerConfig } from '../../src/http/request-guards.js';
import { buildServer } from '../../src/http/build-server.js';
import type { PrincipalResolver } from '../../src/http/principal.js';
import type { RolloutService } from '../../src/http/rollouts-contract.js';
import { buildToolCatalog } from '../../src/mcp/tool-catalog.js';
import { poolSandboxSource } from '../../src/mcp/sandbox-source.js';
import { SandboxPool } from '../../src/sandbox/pool/sandbox-pool.js';
import { smallWikiIndex } from '../../src/testing/small-wiki-index.js';

export interface LimitsServer {
  app: FastifyInstance;
  port: number;
  baseUrl: string;
  /** Every server-side socket accepted so far, in order. */
  serverSockets: Socket[];
  close(): Promise<void>;
}

export async function startLimitsServer(
  server: Partial<ServerConfig>,
  options: { rollouts?: RolloutService; resolvePrincipal?: PrincipalResolver } = {},
): Promise<LimitsServer> {
  const base = loadConfig({ env: {}, flags: { host: '127.0.0.1', port: 0, backend: 'process' } });
  const config = { ...base, server: { ...base.server, ...server } };
  const pool = new SandboxPool({ minIdle: 0, healthIntervalMs: 0, reapIntervalMs: 0, acquireTimeoutMs: 30_000 });
  const app = buildServer(config, {
    environments: buildToolCatalog({ wiki: smallWikiIndex() }),
    sandboxSource: poolSandboxSource(pool, { general: { backend: 'process' }, javascript: { backend: 'isolate' } }),
    pool,
    ...(options.rollouts ? { rollouts: options.rollouts } : {}),
    ...(options.resolvePrincipal ? { resolvePrincipal: options.resolvePrincipal } : {}),
  });
  const serverSockets: Socket[] = [];
  app.server.on('connection', (socket: Socket) => serverSockets.push(socket));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    app,
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    serverSockets,
    close: async () => {
      await app.close();
      await pool.close();
    },
  };
}
