/**
 * A 2025-era session whose client dropped its standalone GET stream and sent no DELETE is closed after a short
 * grace, not at the idle TTL (issue 21, and the CI failure where a wave of such sessions outlived the test's minute).
 * Two ways it leaked: a refused second GET (409) counted as an open stream forever, and a call finishing after the
 * drop cancelled the check instead of postponing it. Through a listening server and real fetch, idle TTL an hour.
 */
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { CorralError } from '../../src/core/errors.js';
import { buildServer } from '../../src/http/build-server.js';
import { buildToolCatalog } from '../../src/mcp/tool-catalog.js';
import { smallWikiIndex } from '../../src/testing/small-wiki-index.js';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

async function listen(): Promise<string> {
  const config = loadConfig({ env: {}, flags: { host: '127.0.0.1', port: 0, idleTtlMs: 3_600_000 } });
  const app = buildServer(config, {
    environments: buildToolCatalog({ wiki: smallWikiIndex() }),
    sandboxSource: { acquire: () => Promise.reject(new CorralError('SBX_ERR_UNAVAILABLE', 'no sandboxes in this test')) },
  });
  apps.push(app);
  return app.listen({ host: '127.0.0.1', port: 0 });
}

const VERSION = '2025-06-18';
const JSON_AND_STREAM = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** A 2025-era session by hand, initialized; returns its id and a helper that POSTs a JSON-RPC message in it. */
async function openSession(url: string): Promise<{ sessionId: string; post: (body: object) => Promise<string> }> {
  const initialized = await fetch(url, {
    method: 'POST',
    headers: JSON_AND_STREAM,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'dropping-client', version: '1.0.0' } },
    }),
  });
  const sessionId = initialized.headers.get('mcp-session-id');
  if (!sessionId) throw new Error(`no session: HTTP ${initialized.status} ${await initialized.text()}`);
  await initialized.text();
  const post = async (body: object) =>
    (
      await fetch(url, {
        method: 'POST',
        headers: { ...JSON_AND_STREAM, 'mcp-session-id': sessionId, 'mcp-protocol-version': VERSION },
        body: JSON.stringify(body),
      })
    ).text();
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return { sessionId, post };
}

function openStream(url: string, sessionId: string, signal: AbortSignal): Promise<Response> {
  return fetch(url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': VERSION }, signal });
}

async function legacySessions(base: string): Promise<number> {
  const metrics = await (await fetch(`${base}/metrics`)).text();
  return Number(/^corral_mcp_active\{kind="legacySessions"\} (\d+)$/m.exec(metrics)?.[1] ?? NaN);
}

describe('sessions whose client dropped the GET stream', () => {
  it('a refused second GET does not keep the session once the first stream is dropped', { timeout: 60_000 }, async () => {
    const base = await listen();
    const url = `${base}/mcp/wiki`;
    const { sessionId } = await openSession(url);
    const first = new AbortController();
    expect((await openStream(url, sessionId, first.signal)).status).toBe(200);
    const second = await openStream(url, sessionId, new AbortController().signal);
    expect(second.status).toBe(409);
    await second.text();
    expect(await legacySessions(base)).toBe(1);
    first.abort();
    await expect.poll(() => legacySessions(base), { timeout: 30_000, interval: 250 }).toBe(0);
  });

  it('a call made after the drop postpones the close instead of cancelling it', { timeout: 60_000 }, async () => {
    const base = await listen();
    const url = `${base}/mcp/wiki`;
    const { sessionId, post } = await openSession(url);
    const stream = new AbortController();
    expect((await openStream(url, sessionId, stream.signal)).status).toBe(200);
    stream.abort();
    // Inside the grace: the session is still there and answers.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const called = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search_pages', arguments: { query: 'river' } } });
    expect(called).toContain('"result"');
    expect(await legacySessions(base)).toBe(1);
    await expect.poll(() => legacySessions(base), { timeout: 30_000, interval: 250 }).toBe(0);
  });
});
