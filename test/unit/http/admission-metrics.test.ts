// /metrics shows the rollout API's admission level (inject, no listen): the gauges read the controller at scrape time.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.js';
import { CorralError } from '../../../src/core/errors.js';
import { buildServer } from '../../../src/http/build-server.js';
import { buildToolCatalog } from '../../../src/mcp/tool-catalog.js';
import { AdmissionController } from '../../../src/runner/run/admission/admission-controller.js';

const scratch = mkdtempSync(join(tmpdir(), 'corral-admission-metrics-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('/metrics and admission control', () => {
  it('reports the level, rollouts in flight, those waiting at the gate and the ceiling', async () => {
    const configFile = join(scratch, 'config.json');
    writeFileSync(configFile, JSON.stringify({}));
    const config = loadConfig({ env: {}, flags: { host: '127.0.0.1', port: 0, token: 't' }, configFile });
    const admission = new AdmissionController({ mode: 'auto', maxConcurrency: 128, freeMemory: () => 0.5 });
    const app = buildServer(config, {
      environments: buildToolCatalog({}),
      sandboxSource: { acquire: () => Promise.reject(new CorralError('SBX_ERR_UNAVAILABLE', 'no sandboxes in this test')) },
      admission: () => admission.snapshot(),
    });
    // Six rollouts against the starting level of 4: four in flight, two waiting.
    const release: (() => void)[] = [];
    const signal = new AbortController().signal;
    const runs = Array.from({ length: 6 }, () => admission.run(signal, () => new Promise<void>((resolve) => release.push(resolve))));
    await new Promise((resolve) => setImmediate(resolve));
    const scrape = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer t' } });
    expect(scrape.statusCode).toBe(200);
    const gauge = (state: string) => Number(new RegExp(`^corral_admission_rollouts\\{state="${state}"\\} (\\S+)$`, 'm').exec(scrape.body)?.[1]);
    expect([gauge('level'), gauge('in_flight'), gauge('waiting'), gauge('max')]).toEqual([4, 4, 2, 128]);
    while (release.length > 0) release.shift()!();
    for (let round = 0; round < 5 && release.length === 0; round++) await new Promise((resolve) => setImmediate(resolve));
    while (release.length > 0) release.shift()!();
    await Promise.all(runs);
    await app.close();
  });
});
