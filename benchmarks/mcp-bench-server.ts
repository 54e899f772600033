/**
 * corral's real fastify app (buildServer) on 127.0.0.1 port 0, as `corral serve` builds it, with the wiki
 * environment over a three-page index and a sandbox pool on the chosen backend for the python figure.
 */
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../src/config/load-config.js';
import { buildServer } from '../src/http/build-server.js';
import { buildToolCatalog } from '../src/mcp/tool-catalog.js';
import { poolSandboxSource } from '../src/mcp/sandbox-source.js';
import { SandboxPool } from '../src/sandbox/pool/sandbox-pool.js';
import type { SandboxSpecInput } from '../src/sandbox/spec.js';
import { smallWikiIndex } from '../src/testing/small-wiki-index.js';
import { type ListeningServer, originOf } from './peers/listening-server.js';

export interface CorralBenchServer extends ListeningServer {
  app: FastifyInstance;
  pool: SandboxPool;
  /** The spec of the python environment's sandboxes. */
  generalSpec: SandboxSpecInput;
}

export async function startCorralBenchServer(options: { backend: 'process' | 'docker'; image?: string }): Promise<CorralBenchServer> {
  const config = loadConfig({ env: {}, flags: { host: '127.0.0.1', port: 0, backend: options.backend } });
  const generalSpec: SandboxSpecInput =
    options.backend === 'docker' ? { backend: 'docker', image: options.image ?? config.sandbox.image } : { backend: 'process' };
  const pool = new SandboxPool({ minIdle: 0, healthIntervalMs: 0, reapIntervalMs: 0 });
  // One principal (the loopback address) opens every session and handle of the bench: no per-principal quota applies.
  const unlimited = {
    maxSessionsPerPrincipal: Number.MAX_SAFE_INTEGER,
    maxHandlesPerPrincipal: Number.MAX_SAFE_INTEGER,
    maxLeasedSandboxesPerPrincipal: Number.MAX_SAFE_INTEGER,
  };
  const app = buildServer(
    { ...config, server: { ...config.server, ...unlimited } },
    {
      environments: buildToolCatalog({ wiki: smallWikiIndex() }),
      sandboxSource: poolSandboxSource(pool, { general: generalSpec, javascript: { backend: 'isolate' } }),
      pool,
    },
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    ...originOf(app.server),
    app,
    pool,
    generalSpec,
    close: async () => {
      await app.close();
      await pool.close();
    },
  };
}
