/**
 * /healthz stays liveness; /readyz reports whether the backend can create sandboxes (200 ready, 503 not ready with
 * {backend, ready, reason}), so a load balancer stops sending work to a server whose every tool call would fail.
 */
import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { createConnection, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openBackendProbe } from '../../src/cli/commands/backend-choice.js';
import { loadConfig } from '../../src/config/load-config.js';
import { buildServer } from '../../src/http/build-server.js';
import { buildToolCatalog } from '../../src/mcp/tool-catalog.js';
import { poolSandboxSource } from '../../src/mcp/sandbox-source.js';
import { SandboxPool } from '../../src/sandbox/pool/sandbox-pool.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { startServe } from './serve-cli-process.js';

const processBackend = await backendAvailable('process');
const dockerBackend = await backendAvailable('docker');

describe.skipIf(!processBackend)('corral serve /readyz, process backend', () => {
  it('answers 200 {backend: process, ready: true} without the bearer token, beside /healthz', async () => {
    const serve = startServe(['--backend', 'process', '--port', '0', '--token', 'ready-token']);
    try {
      await expect.poll(() => serve.address(), { timeout: 30_000 }).toBeDefined();
      const readiness = await fetch(`${serve.address()}/readyz`);
      expect(readiness.status).toBe(200);
      expect(await readiness.json()).toEqual({ backend: 'process', ready: true });
      const health = await fetch(`${serve.address()}/healthz`);
      expect(health.status).toBe(200);
      expect(((await health.json()) as { status: string }).status).toBe('ok');
    } finally {
      serve.kill();
    }
  });
});

/** A unix socket that forwards every connection to the real Docker daemon: the daemon "comes back" when it listens. */
async function daemonProxy(path: string): Promise<{ stop(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const proxy = createServer((client) => {
    const daemon = createConnection('/var/run/docker.sock');
    sockets.add(client).add(daemon);
    client.pipe(daemon).pipe(client);
    client.on('error', () => daemon.destroy());
    daemon.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(path, resolve));
  return {
    // The provider keeps connections alive: cut them, as a stopped daemon would.
    stop: () =>
      new Promise<void>((resolve) => {
        proxy.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

describe.skipIf(!dockerBackend)('/readyz follows the docker daemon', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('503 with the reason while the daemon socket is missing, 200 once it answers, 503 again when it goes', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'corral-readyz-'));
    cleanups.push(() => rmSync(folder, { recursive: true, force: true }));
    const socketPath = join(folder, 'docker.sock');
    const config = loadConfig({ env: {}, flags: { backend: 'docker', dockerSocket: socketPath, host: '127.0.0.1', port: 0 } });
    const probe = await openBackendProbe(config, 'docker');
    const pool = new SandboxPool({ minIdle: 0, healthIntervalMs: 0, reapIntervalMs: 0 });
    const app = buildServer(config, {
      environments: buildToolCatalog({}),
      sandboxSource: poolSandboxSource(pool, { general: { backend: 'docker' }, javascript: { backend: 'isolate' } }),
      readiness: () => probe.readiness(),
    });
    cleanups.push(async () => {
      await app.close();
      await pool.close();
      await probe.close();
    });
    const readyz = async () => {
      const response = await app.inject({ method: 'GET', url: '/readyz' });
      return { status: response.statusCode, body: response.json() as { backend: string; ready: boolean; reason?: string } };
    };

    const missing = await readyz();
    expect(missing.status).toBe(503);
    expect(missing.body).toMatchObject({ backend: 'docker', ready: false });
    expect(missing.body.reason).toContain(socketPath);
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);

    const proxy = await daemonProxy(socketPath);
    cleanups.push(() => proxy.stop());
    await expect.poll(readyz, { timeout: 20_000, interval: 250 }).toEqual({ status: 200, body: { backend: 'docker', ready: true } });

    await proxy.stop();
    rmSync(socketPath, { force: true });
    await expect.poll(async () => (await readyz()).status, { timeout: 20_000, interval: 250 }).toBe(503);
  });
});
