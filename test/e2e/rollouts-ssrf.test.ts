/**
 * POST /v1/rollouts names its own model base_url, so a client of a shared server must not be able to read or
 * probe services only the server can reach: upstream bodies never come back (status and code only; the body
 * goes to the server log), and the endpoint policy refuses internal addresses, checked on the resolved address.
 * Real HTTP throughout: a corral server as `corral serve` composes it, and a loopback-only "internal" service.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startToolRuntime, type ToolRuntime } from '../../src/cli/runtime/tool-runtime.js';
import { createRolloutService } from '../../src/cli/runtime/rollout-service.js';
import { loadConfig } from '../../src/config/load-config.js';
import { buildServer } from '../../src/http/build-server.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { RUNNER_FIXTURES } from './runner-cli.js';
import { readNdjson } from './runner-rollout-server.js';

const processBackend = await backendAvailable('process');
const SECRET = 'INTERNAL-SECRET-token=hunter2';
const TOKEN = 'ssrf-token';

interface CorralServer {
  baseUrl: string;
  logs: string[];
  leased(): number;
  post(body: unknown): Promise<Response>;
  close(): Promise<void>;
}

/** `host` is the configured bind address (what the policy keys on); the test listens on 127.0.0.1 either way. */
async function startCorral(server: { host: string; modelEndpointAllowlist?: string[] }): Promise<CorralServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'corral-ssrf-data-'));
  const loaded = loadConfig({ env: {}, flags: { backend: 'process', host: server.host, port: 0, token: TOKEN, dataDir } });
  const config = { ...loaded, server: { ...loaded.server, modelEndpointAllowlist: server.modelEndpointAllowlist ?? [] } };
  const runtime: ToolRuntime = await startToolRuntime(config, {
    corpusPaths: [join(RUNNER_FIXTURES, 'tiny-pages.jsonl')],
    minIdle: 0,
    loadWiki: true,
    log: () => undefined,
  });
  const logs: string[] = [];
  const stream = new Writable({ write: (chunk, _encoding, done) => (logs.push(String(chunk)), done()) });
  const app: FastifyInstance = buildServer(config, {
    environments: runtime.catalog,
    sandboxSource: runtime.sandboxSource,
    pool: runtime.pool,
    rollouts: createRolloutService({ runtime, dataDir, server: config.server }),
    logger: { level: 'warn', stream },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    baseUrl,
    logs,
    leased: () => runtime.pool.stats().reduce((sum, bucket) => sum + bucket.leased, 0),
    post: (body) =>
      fetch(`${baseUrl}/v1/rollouts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    async close() {
      await app.close();
      await runtime.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A loopback-only service with secrets in its answers: 403 with a JSON error, 403 plain text, and 200 plain text. */
async function startInternalService(): Promise<{ port: number; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  const server: Server = createServer((request, response) => {
    hits.push(request.url ?? '');
    if (request.url?.startsWith('/json/'))
      return response
        .writeHead(403, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: `403 ${SECRET} from a loopback-only service` } }));
    if (request.url?.startsWith('/text/')) return response.writeHead(403, { 'content-type': 'text/plain' }).end(`${SECRET} (plain text)`);
    response.writeHead(200, { 'content-type': 'application/json' }).end(`${SECRET} is not json`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { port: typeof address === 'object' && address ? address.port : 0, hits, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const question = { env: 'wiki-search', examples: [{ id: 'q', prompt: 'Who opened the Marrow Valley Railway?', answer: 'Harriet Lowell' }] };

describe.skipIf(!processBackend)('rollout API: no upstream bodies, and an endpoint policy', () => {
  let internal: Awaited<ReturnType<typeof startInternalService>>;
  let model: ScriptedModelServer;

  beforeAll(async () => {
    internal = await startInternalService();
    model = await startScriptedModelServer(() => ({ kind: 'text', content: 'Harriet Lowell' }));
  });

  afterAll(async () => {
    await internal?.close();
    await model?.close();
  });

  it('records the status and code of a failing endpoint, never its body (JSON, plain text or a 2xx non-JSON); the body goes to the server log', async () => {
    const corral = await startCorral({ host: '127.0.0.1' });
    try {
      for (const [path, code, status] of [
        ['json', 'MODEL_ERR_HTTP', 403],
        ['text', 'MODEL_ERR_HTTP', 403],
        ['ok', 'MODEL_ERR_BAD_RESPONSE', null],
      ] as const) {
        const response = await corral.post({
          ...question,
          model: { base_url: `http://127.0.0.1:${internal.port}/${path}/v1`, model: 'probe', max_retries: 0 },
        });
        expect(response.status).toBe(200);
        const lines = await readNdjson(response);
        expect(JSON.stringify(lines)).not.toContain('hunter2');
        const error = lines[0]!.value.error as { code: string; message: string };
        expect(error.code).toBe(code);
        if (status !== null) expect(error.message).toContain(`HTTP ${status}`);
        expect(lines.at(-1)!.value).toMatchObject({ type: 'summary', errored: 1, errors_by_code: { [code]: 1 } });
      }
      // The operator can still see what the endpoint said.
      expect(corral.logs.join('')).toContain('hunter2');
    } finally {
      await corral.close();
    }
  });

  it('bound beyond 127.0.0.1: loopback, link-local, metadata and unspecified endpoints are refused with 400 before any rollout runs', async () => {
    const corral = await startCorral({ host: '0.0.0.0' });
    try {
      const before = internal.hits.length;
      // localhost is a name: the policy checks what it resolves to.
      for (const host of ['127.0.0.1', 'localhost', '[::1]', '169.254.169.254', '0.0.0.0', '[::ffff:127.0.0.1]']) {
        const response = await corral.post({ ...question, model: { base_url: `http://${host}:${internal.port}/json/v1`, model: 'probe' } });
        const reply = (await response.json()) as { error: { code: string; field: string; message: string } };
        expect([host, response.status, reply.error.code, reply.error.field]).toEqual([host, 400, 'MODEL_ERR_ENDPOINT_REFUSED', 'model.base_url']);
        expect(reply.error.message).not.toContain('hunter2');
      }
      expect(internal.hits.length).toBe(before);
      expect(corral.leased()).toBe(0);
    } finally {
      await corral.close();
    }
  });

  it('server.modelEndpointAllowlist admits only the hosts and CIDRs it lists', async () => {
    const corral = await startCorral({ host: '0.0.0.0', modelEndpointAllowlist: ['127.0.0.1/32', '::1'] });
    try {
      const allowed = await readNdjson(await corral.post({ ...question, model: { base_url: model.baseURL, model: 'scripted' } }));
      expect(allowed.at(-1)!.value).toMatchObject({ type: 'summary', status: 'complete', errored: 0, avg_reward: 1 });
      // A name resolving into the allowed CIDR passes; an address outside it does not.
      const byName = await readNdjson(
        await corral.post({ ...question, model: { base_url: model.baseURL.replace('127.0.0.1', 'localhost'), model: 'scripted' } }),
      );
      expect(byName.at(-1)!.value).toMatchObject({ status: 'complete', avg_reward: 1 });
      const outside = await corral.post({ ...question, model: { base_url: model.baseURL.replace('127.0.0.1', '127.0.0.2'), model: 'scripted' } });
      expect(outside.status).toBe(400);
      expect(((await outside.json()) as { error: { code: string } }).error.code).toBe('MODEL_ERR_ENDPOINT_REFUSED');
    } finally {
      await corral.close();
    }
  });
});
