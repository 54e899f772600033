/**
 * A Docker sandbox frozen mid-call (`docker pause`) is infrastructure, not a model error: the call fails with a
 * JSON-RPC -32603 error carrying SBX_ERR_UNRESPONSIVE, the container is taken out of service, and the same MCP
 * session's next call runs in a fresh sandbox. A busy command that merely times out (its agent still answers a
 * ping) stays an isError result for the model, in the same sandbox. Real Docker, real HTTP, real MCP client.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/client';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { OWNER_ID } from '../../src/core/owner.js';
import { buildServer } from '../../src/http/build-server.js';
import { buildToolCatalog } from '../../src/mcp/tool-catalog.js';
import { poolSandboxSource } from '../../src/mcp/sandbox-source.js';
import { buildImages } from '../../src/sandbox/docker/image-builder.js';
import { SandboxPool } from '../../src/sandbox/pool/sandbox-pool.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { callTool, connectHttp, textOf } from '../helpers/mcp-clients.js';
import { smallWikiIndex } from '../../src/testing/small-wiki-index.js';
import { waitFor } from './runner-rollout-server.js';

const execFileAsync = promisify(execFile);
const dockerAvailable = await backendAvailable('docker');

/** Containers of this test process (the pool labels each with our owner id), running or paused. */
async function ownContainers(): Promise<string[]> {
  const { stdout } = await execFileAsync('docker', [
    'ps',
    '-q',
    '--no-trunc',
    '--filter',
    'label=corral.app=corral',
    '--filter',
    `label=corral.owner=${OWNER_ID}`,
  ]);
  return stdout.split('\n').filter(Boolean);
}

async function containerExists(id: string): Promise<boolean> {
  const { stdout } = await execFileAsync('docker', ['ps', '-aq', '--no-trunc', '--filter', `id=${id}`]);
  return stdout.trim() !== '';
}

describe.skipIf(!dockerAvailable)('a wedged docker sandbox behind the MCP tool server', () => {
  let pool: SandboxPool;
  let app: FastifyInstance;
  let client: Client;
  const paused = new Set<string>();

  beforeAll(async () => {
    await buildImages({ offline: true, log: (line) => console.log(`[images] ${line}`) });
    pool = new SandboxPool({ minIdle: 0, healthIntervalMs: 0, reapIntervalMs: 0, acquireTimeoutMs: 120_000 });
    const config = loadConfig({ env: {}, flags: { host: '127.0.0.1', port: 0, backend: 'docker' } });
    app = buildServer(config, {
      environments: buildToolCatalog({ wiki: smallWikiIndex() }),
      sandboxSource: poolSandboxSource(pool, { general: { backend: 'docker' }, javascript: { backend: 'isolate' } }),
      pool,
      logger: { level: 'error' },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    ({ client } = await connectHttp(`http://127.0.0.1:${port}/mcp/all`));
  }, 900_000);

  afterAll(async () => {
    for (const id of paused) await execFileAsync('docker', ['unpause', id]).catch(() => undefined);
    await client?.close().catch(() => undefined);
    await app?.close();
    await pool?.close();
    for (const id of paused) await execFileAsync('docker', ['rm', '-f', id]).catch(() => undefined);
  });

  it('a busy command that times out is an isError result for the model, and the sandbox stays in service', async () => {
    expect((await callTool(client, 'bash', { command: 'echo kept > marker' })).isError).toBeFalsy();
    const [container] = await ownContainers();
    const busy = await callTool(client, 'bash', { command: 'sleep 30', timeout_s: 1 });
    expect(busy.isError).toBe(true);
    expect(busy.structuredContent).toMatchObject({ timed_out: true });
    const after = await callTool(client, 'bash', { command: 'cat marker' });
    expect(textOf(after)).toContain('kept');
    expect(await ownContainers()).toEqual([container]);
  }, 120_000);

  it('a paused container fails the call with SBX_ERR_UNRESPONSIVE (-32603), is destroyed, and the next call gets a fresh sandbox', async () => {
    expect((await callTool(client, 'bash', { command: 'echo before > marker' })).isError).toBeFalsy();
    const containers = await ownContainers();
    expect(containers).toHaveLength(1);
    const wedged = containers[0]!;
    paused.add(wedged);
    await execFileAsync('docker', ['pause', wedged]);

    const failure = await callTool(client, 'bash', { command: 'echo hello', timeout_s: 1 }).then(
      (result) => ({ result }),
      (error: unknown) => ({ error: error as { code?: number; data?: { corralCode?: string; audience?: string } } }),
    );
    expect('error' in failure ? { code: failure.error.code, data: failure.error.data } : failure).toMatchObject({
      code: -32603,
      data: { corralCode: 'SBX_ERR_UNRESPONSIVE', audience: 'infrastructure' },
    });

    // Out of service: the pool destroys the container rather than keeping or reusing it.
    await waitFor(
      () => pool.stats().every((bucket) => bucket.leased === 0),
      30_000,
      () => JSON.stringify(pool.stats()),
    );
    const deadline = performance.now() + 60_000;
    while (await containerExists(wedged)) {
      if (performance.now() > deadline) throw new Error(`container ${wedged} still exists`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    paused.delete(wedged);

    // Same MCP session: a fresh sandbox (the old workspace is gone), not SBX_ERR_CLOSED and not the frozen one.
    const next = await callTool(client, 'bash', { command: 'cat marker 2>/dev/null || echo fresh' });
    expect(next.isError).toBeFalsy();
    expect(textOf(next)).toContain('fresh');
    const now = await ownContainers();
    expect(now).toHaveLength(1);
    expect(now).not.toContain(wedged);
  }, 180_000);
});
