/**
 * The viewer under `corral serve`'s app at /view: the page loads without the token (it holds no data), every
 * /view/api route needs it, Host is checked as for /mcp, and the page in Chromium reaches the API with the token
 * taken from its #token= fragment.
 */
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { buildServer } from '../../src/http/build-server.js';
import { buildToolCatalog } from '../../src/mcp/tool-catalog.js';
import { poolSandboxSource } from '../../src/mcp/sandbox-source.js';
import { SandboxPool } from '../../src/sandbox/pool/sandbox-pool.js';
import { smallWikiIndex } from '../../src/testing/small-wiki-index.js';
import { writeSyntheticRun } from '../../benchmarks/view-synthetic-run.js';
import { gate } from '../helpers/test-gates.js';

const CHROMIUM = '/usr/bin/chromium';
const TOKEN = 'viewer-test-token';
const haveChromium = gate('headless Chromium', existsSync(CHROMIUM) ? null : `${CHROMIUM} is missing (scripts/setup.sh installs Debian's chromium)`);
const root = mkdtempSync(join(tmpdir(), 'corral-viewer-serve-'));
const outside = mkdtempSync(join(tmpdir(), 'corral-viewer-serve-outside-'));
const pool = new SandboxPool({ minIdle: 0, healthIntervalMs: 0, reapIntervalMs: 0, acquireTimeoutMs: 30_000 });
let app: FastifyInstance;
let base = '';

const statusOf = (path: string, headers: Record<string, string> = {}) =>
  new Promise<number>((resolve, reject) => {
    const request = httpRequest(`${base}${path}`, { headers }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', reject);
    request.end();
  });

beforeAll(async () => {
  writeSyntheticRun(join(root, 'synthetic--scripted-model', 'run'), { rollouts: 30 });
  // A run whose metadata.json is a link to a JSON file outside the folder: never read.
  writeSyntheticRun(join(root, 'linked--meta', 'run'), { rollouts: 2 });
  writeFileSync(join(outside, 'secret.json'), JSON.stringify({ env: 'outside-secret', api_key: 'outside-secret' }));
  rmSync(join(root, 'linked--meta', 'run', 'metadata.json'));
  symlinkSync(join(outside, 'secret.json'), join(root, 'linked--meta', 'run', 'metadata.json'));
  const config = loadConfig({ env: {}, flags: { host: '127.0.0.1', port: 0, backend: 'process', token: TOKEN } });
  app = buildServer(config, {
    environments: buildToolCatalog({ wiki: smallWikiIndex() }),
    sandboxSource: poolSandboxSource(pool, { general: { backend: 'process' }, javascript: { backend: 'isolate' } }),
    pool,
    viewerRoot: root,
  });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await app.close();
  await pool.close();
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe('the viewer mounted at /view on corral serve', () => {
  it('serves the page without the token and the API only with it', async () => {
    expect(await statusOf('/view/')).toBe(200);
    expect(await statusOf('/view/assets/app.js')).toBe(200);
    expect(await statusOf('/view')).toBe(302);
    expect(await statusOf('/view/api/runs')).toBe(401);
    expect(await statusOf('/view/api/runs', { authorization: 'Bearer wrong' })).toBe(401);
    expect(await statusOf('/view/api/runs', { authorization: `Bearer ${TOKEN}` })).toBe(200);
    expect(
      await statusOf(`/view/api/file?run=${encodeURIComponent('synthetic--scripted-model/run')}&path=${encodeURIComponent('../../x')}`, {
        authorization: `Bearer ${TOKEN}`,
      }),
    ).toBe(403);
  });

  it('never reads a metadata.json that is a symlink out of the folder', async () => {
    const authorization = { authorization: `Bearer ${TOKEN}` };
    for (const path of ['/view/api/runs', `/view/api/run?run=${encodeURIComponent('linked--meta/run')}`]) {
      const response = await fetch(`${base}${path}`, { headers: authorization });
      expect(response.status).toBe(200);
      expect(await response.text()).not.toContain('outside-secret');
    }
  });

  it('checks Host on the page as on every route', async () => {
    expect(await statusOf('/view/', { host: 'evil.example' })).toBe(403);
    expect(await statusOf('/view/api/runs', { host: 'evil.example', authorization: `Bearer ${TOKEN}` })).toBe(403);
  });

  it.runIf(haveChromium)('in Chromium, the page sends the token from its #token= fragment', async () => {
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-background-networking'] });
    try {
      const page = await browser.newPage();
      await page.goto(`${base}/view/#token=${TOKEN}`);
      await page.waitForSelector('tr[data-run="synthetic--scripted-model/run"]');
      expect(await page.locator('tr[data-run="synthetic--scripted-model/run"] [data-field=rollouts]').innerText()).toBe('30');
    } finally {
      await browser.close();
    }
  });
});
