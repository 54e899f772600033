/**
 * POST /v1/rollouts with `record: {series, step}`: the records land in the series' run folder under the server's
 * runs folder (results.jsonl + steps.jsonl), the summary line says where, the viewer's series API draws the steps,
 * and nothing is ever written through a symlink. The rollout service is a fake: this is the route and the files.
 */
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.js';
import { buildServer } from '../../../src/http/build-server.js';
import type { RolloutService } from '../../../src/http/rollouts-contract.js';
import { buildToolCatalog } from '../../../src/mcp/tool-catalog.js';
import { poolSandboxSource } from '../../../src/mcp/sandbox-source.js';
import { SandboxPool } from '../../../src/sandbox/pool/sandbox-pool.js';

const pool = new SandboxPool({ minIdle: 0, healthIntervalMs: 0, reapIntervalMs: 0, acquireTimeoutMs: 1_000 });
const config = loadConfig({ env: {}, flags: { host: '127.0.0.1', port: 0, backend: 'process' } });
let root = '';
let outside = '';
let prepared = 0;
const apps: FastifyInstance[] = [];

/** A record as the runner streams it, reduced to what a series counts. */
const record = (exampleId: string, rolloutIndex: number, reward: number | null, usage: { prompt_tokens: number; completion_tokens: number } | null) => ({
  version: 1,
  example_id: exampleId,
  rollout_index: rolloutIndex,
  reward,
  error: reward === null ? { boundary: 'model', code: 'MODEL_ERR_HTTP', message: 'scripted', transient: false } : null,
  usage,
});

/** Rewards by step: each request streams one group of these records. */
const STEP_RECORDS: Record<number, ReturnType<typeof record>[]> = {
  0: [
    record('a', 0, 0, { prompt_tokens: 10, completion_tokens: 2 }),
    record('a', 1, 0.5, { prompt_tokens: 10, completion_tokens: 4 }),
    record('a', 2, null, null),
  ],
  1: [record('a', 0, 1, { prompt_tokens: 12, completion_tokens: 3 }), record('a', 1, 0.5, { prompt_tokens: 12, completion_tokens: 3 })],
};

const service: RolloutService = {
  async prepare(request) {
    prepared++;
    const records = STEP_RECORDS[request.record?.step ?? 0] ?? [];
    return {
      env: request.env,
      model: request.model.model,
      numExamples: 1,
      rolloutsPerExample: records.length,
      async run({ onGroup }) {
        onGroup(records);
        return { rollouts: records.length, errored: 0, avg_reward: null, metric_averages: {}, errors_by_code: {} };
      },
    };
  },
};

function server(viewerRoot: string | undefined): FastifyInstance {
  const app = buildServer(config, {
    environments: buildToolCatalog({}),
    sandboxSource: poolSandboxSource(pool, { general: { backend: 'process' }, javascript: { backend: 'isolate' } }),
    rollouts: service,
    ...(viewerRoot === undefined ? {} : { viewerRoot }),
  });
  apps.push(app);
  return app;
}

const body = (extra: Record<string, unknown>) => ({
  env: 'keybox',
  examples: [{ id: 'a', prompt: 'open the box' }],
  model: { base_url: 'http://127.0.0.1:9/v1', model: 'policy' },
  ...extra,
});

async function post(app: FastifyInstance, payload: unknown) {
  const response = await app.inject({ method: 'POST', url: '/v1/rollouts', payload: payload as Record<string, unknown> });
  const lines = response.body
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { status: response.statusCode, lines, json: () => JSON.parse(response.body) as { error: Record<string, unknown> } };
}

const jsonl = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'corral-series-'));
  outside = mkdtempSync(join(tmpdir(), 'corral-series-outside-'));
  prepared = 0;
});

afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

afterAll(() => pool.close());

describe('POST /v1/rollouts record: {series, step}', () => {
  it('appends each request to series/<name>/ and the viewer draws one point per step', async () => {
    const app = server(root);
    const first = await post(app, body({ record: { series: 'run-7', step: 0 } }));
    expect(first.status).toBe(200);
    expect(first.lines.at(-1)).toMatchObject({ type: 'summary', status: 'complete', series: { name: 'run-7', step: 0, first_line: 0, records: 3 } });
    const second = await post(app, body({ record: { series: 'run-7', step: 1 } }));
    expect(second.lines.at(-1)).toMatchObject({ series: { name: 'run-7', step: 1, first_line: 3, records: 2 } });

    const folder = join(root, 'series', 'run-7');
    // The records exactly as streamed, in request order; the summary lines are not records.
    expect(jsonl(join(folder, 'results.jsonl'))).toEqual([...first.lines.slice(0, -1), ...second.lines.slice(0, -1)]);
    const steps = jsonl(join(folder, 'steps.jsonl'));
    expect(steps.map((line) => [line.step, line.first_line, line.records, line.errored, line.scored, line.status, line.env, line.model])).toEqual([
      [0, 0, 3, 1, 2, 'complete', 'keybox', 'policy'],
      [1, 3, 2, 0, 2, 'complete', 'keybox', 'policy'],
    ]);

    const curve = await app.inject({ method: 'GET', url: '/view/api/series?name=run-7' });
    expect(curve.statusCode).toBe(200);
    const { run, env, steps: points } = curve.json<{ run: string; env: string; steps: Record<string, number>[] }>();
    expect({ run, env }).toEqual({ run: 'series/run-7', env: 'keybox' });
    expect(points).toHaveLength(2);
    expect(points[0]).toMatchObject({ step: 0, requests: 1, rollouts: 3, errored: 1, reward_min: 0, reward_max: 0.5 });
    expect(points[0]!.errored_share).toBeCloseTo(1 / 3, 12);
    expect(points[0]!.reward_mean).toBeCloseTo(0.25, 12);
    expect(points[0]!.reward_std).toBeCloseTo(0.25, 12);
    expect(points[0]!.prompt_tokens_per_rollout).toBe(10);
    expect(points[0]!.completion_tokens_per_rollout).toBe(3);
    expect(points[1]).toMatchObject({ step: 1, rollouts: 2, errored: 0, reward_min: 0.5, reward_max: 1, completion_tokens_per_rollout: 3 });
    expect(points[1]!.reward_mean).toBeCloseTo(0.75, 12);

    const list = await app.inject({ method: 'GET', url: '/view/api/series-list' });
    expect(list.json()).toEqual({
      series: [expect.objectContaining({ name: 'run-7', run: 'series/run-7', steps: 2, last_step: 1, rollouts: 5, last_reward_mean: 0.75 })],
    });
    // The series is a run like any other: its rollouts open in the viewer.
    const runs = await app.inject({ method: 'GET', url: '/view/api/runs' });
    expect(runs.json<{ runs: { id: string; rollouts: number }[] }>().runs).toEqual([
      expect.objectContaining({ id: 'series/run-7', env: 'keybox', model: 'policy', status: 'complete', rollouts: 5, errored: 1 }),
    ]);
  });

  it('combines two requests of one step into one point', async () => {
    const app = server(root);
    await post(app, body({ record: { series: 'twice', step: 0 } }));
    await post(app, body({ record: { series: 'twice', step: 0 } }));
    const points = (await app.inject({ method: 'GET', url: '/view/api/series?name=twice' })).json<{ steps: Record<string, number>[] }>().steps;
    expect(points).toHaveLength(1);
    expect(points[0]).toMatchObject({ step: 0, requests: 2, rollouts: 6, errored: 2 });
    expect(points[0]!.reward_mean).toBeCloseTo(0.25, 12);
  });

  it('writes nothing for a request that names no series', async () => {
    const app = server(root);
    expect((await post(app, body({}))).status).toBe(200);
    expect(existsSync(join(root, 'series'))).toBe(false);
  });

  it('refuses a series on a server with no runs folder, and names no path a folder cannot have', async () => {
    const without = await post(server(undefined), body({ record: { series: 'run', step: 0 } }));
    expect(without.status).toBe(400);
    expect(without.json().error).toMatchObject({ code: 'SERIES_ERR_UNAVAILABLE', field: 'record' });
    for (const name of ['../escape', 'a/b', '.hidden', '']) {
      const refused = await post(server(root), body({ record: { series: name, step: 0 } }));
      expect(refused.status).toBe(400);
      expect(refused.json().error).toMatchObject({ code: 'INVALID_REQUEST', field: 'record.series' });
    }
    const negative = await post(server(root), body({ record: { series: 'run', step: -1 } }));
    expect(negative.json().error).toMatchObject({ code: 'INVALID_REQUEST', field: 'record.step' });
    expect(prepared).toBe(0);
  });

  it('never writes through a symlink: series/, the series folder and its files are refused before any rollout runs', async () => {
    const planted = [
      () => symlinkSync(outside, join(root, 'series')),
      () => {
        mkdirSync(join(root, 'series'));
        symlinkSync(outside, join(root, 'series', 'run'));
      },
      () => {
        mkdirSync(join(root, 'series', 'run'), { recursive: true });
        writeFileSync(join(outside, 'results.jsonl'), 'kept\n');
        symlinkSync(join(outside, 'results.jsonl'), join(root, 'series', 'run', 'results.jsonl'));
      },
      () => {
        mkdirSync(join(root, 'series', 'run'), { recursive: true });
        writeFileSync(join(outside, 'steps.jsonl'), 'kept\n');
        symlinkSync(join(outside, 'steps.jsonl'), join(root, 'series', 'run', 'steps.jsonl'));
      },
    ];
    for (const plant of planted) {
      rmSync(join(root, 'series'), { recursive: true, force: true });
      plant();
      const refused = await post(server(root), body({ record: { series: 'run', step: 0 } }));
      expect(refused.status).toBe(500);
      expect(refused.json().error).toMatchObject({ code: 'SERIES_ERR_WRITE' });
      expect(refused.json().error.message).not.toContain(outside);
    }
    expect(prepared).toBe(0);
    expect(readFileSync(join(outside, 'results.jsonl'), 'utf8')).toBe('kept\n');
    expect(readFileSync(join(outside, 'steps.jsonl'), 'utf8')).toBe('kept\n');
    expect(lstatSync(join(root, 'series', 'run', 'steps.jsonl')).isSymbolicLink()).toBe(true);
  });

  it('a link planted after the folder was opened is not followed either: the summary says the series was not written', async () => {
    const app = server(root);
    for (const name of ['results.jsonl', 'steps.jsonl', 'metadata.json']) {
      const series = `run-${name.split('.')[0]}`;
      expect((await post(app, body({ record: { series, step: 0 } }))).lines.at(-1)).toMatchObject({ series: { first_line: 0, records: 3 } });
      const planted = join(root, 'series', series, name);
      writeFileSync(join(outside, name), 'kept\n');
      rmSync(planted);
      symlinkSync(join(outside, name), planted);
      const second = await post(app, body({ record: { series, step: 1 } }));
      expect(second.status).toBe(200);
      // The records (two at step 1) were streamed all the same, then the summary; nothing reached the link's target.
      expect(second.lines).toHaveLength(3);
      expect(readFileSync(join(outside, name), 'utf8')).toBe('kept\n');
      if (name === 'metadata.json') {
        // Replaced by rename: the link itself gives way to a regular file.
        expect(second.lines.at(-1)).toMatchObject({ series: { name: series, step: 1, first_line: 3, records: 2 } });
        expect(lstatSync(planted).isFile()).toBe(true);
      } else {
        expect(second.lines.at(-1)).toMatchObject({
          type: 'summary',
          status: 'complete',
          series: { name: series, step: 1, error: { code: 'SERIES_ERR_WRITE' } },
        });
      }
    }
  });

  it('the viewer refuses a series name it cannot hold and a series folder that is a symlink', async () => {
    const app = server(root);
    mkdirSync(join(root, 'series'));
    mkdirSync(join(outside, 'secret'));
    writeFileSync(join(outside, 'secret', 'steps.jsonl'), '');
    symlinkSync(join(outside, 'secret'), join(root, 'series', 'linked'));
    expect((await app.inject({ method: 'GET', url: '/view/api/series?name=..%2Fx' })).statusCode).toBe(400);
    expect((await app.inject({ method: 'GET', url: '/view/api/series?name=linked' })).statusCode).toBe(403);
    expect((await app.inject({ method: 'GET', url: '/view/api/series?name=missing' })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/view/api/series-list' })).json()).toEqual({ series: [] });
  });
});
