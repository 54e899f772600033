/**
 * A real corral HTTP server on an ephemeral port, backed by a real SandboxPool (the process backend unless
 * `backend` says docker), for end-to-end MCP tests. close() shuts the app (releasing every lease) and then the pool.
 */
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config/load-config.js';
import { buildServer } from '../../src/http/build-server.js';
import type { PrincipalResolver } from '../../src/http/principal.js';
import { buildToolCatalog } from '../../src/mcp/tool-catalog.js';
import { poolSandboxSource } from '../../src/mcp/sandbox-source.js';
import { SandboxPool } from '../../src/sandbox/pool/sandbox-pool.js';
import { smallWikiIndex } from '../../src/testing/small-wiki-index.js';

export interface TestServerOptions {
  /** Backend of the general sandboxes (python, bash, files). Default: process. */
  backend?: 'process' | 'docker';
  token?: string;
  idleTtlMs?: number;
  bodyLimitBytes?: number;
  resolvePrincipal?: PrincipalResolver;
}

export interface TestServer {
  app: FastifyInstance;
  pool: SandboxPool;
  /** e.g. http://127.0.0.1:41234 */
  baseUrl: string;
  port: number;
  close(): Promise<void>;
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const backend = options.backend ?? 'process';
  const flags: Record<string, unknown> = { host: '127.0.0.1', port: 0, backend };
  if (options.token) flags.token = options.token;
  if (options.idleTtlMs) flags.idleTtlMs = options.idleTtlMs;
  const config = loadConfig({ env: {}, flags });
  const effective = options.bodyLimitBytes ? { ...config, server: { ...config.server, bodyLimitBytes: options.bodyLimitBytes } } : config;
  const pool = new SandboxPool({ minIdle: 0, healthIntervalMs: 0, reapIntervalMs: 0, acquireTimeoutMs: backend === 'docker' ? 120_000 : 30_000 });
  const app = buildServer(effective, {
    environments: buildToolCatalog({ wiki: smallWikiIndex() }),
    sandboxSource: poolSandboxSource(pool, { general: { backend }, javascript: { backend: 'isolate' } }),
    pool,
    ...(options.resolvePrincipal ? { resolvePrincipal: options.resolvePrincipal } : {}),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    app,
    pool,
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    close: async () => {
      await app.close();
      await pool.close();
    },
  };
}
