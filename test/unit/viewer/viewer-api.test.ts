import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summarise } from '../../../src/runner/run/run-summary.js';
import { buildViewerServer } from '../../../src/http/viewer-server.js';
import type { ResultRecord } from '../../../src/runner/trajectory/result-record.js';
import { syntheticRecord, writeSyntheticRun } from '../../../benchmarks/view-synthetic-run.js';

const root = mkdtempSync(join(tmpdir(), 'corral-viewer-api-'));
const outside = mkdtempSync(join(tmpdir(), 'corral-viewer-outside-'));
const app = buildViewerServer({ root, host: '127.0.0.1', tailIntervalMs: 50 });
let base = '';
let big: ResultRecord[] = [];
let small: ResultRecord[] = [];

const get = async (path: string, headers: Record<string, string> = {}) => {
  const response = await fetch(`${base}${path}`, { headers });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tests read JSON bodies field by field
  return { status: response.status, body: (await response.json()) as Record<string, any> };
};
const q = encodeURIComponent;
/** fetch never sends a chosen Host header; node:http does. */
const statusWithHost = (host: string) =>
  new Promise<number>((resolve, reject) => {
    const request = httpRequest(`${base}/api/runs`, { headers: { host } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', reject);
    request.end();
  });

beforeAll(async () => {
  big = writeSyntheticRun(join(root, 'synthetic--big', 'run-1'), { rollouts: 100_000, rolloutsPerExample: 4 });
  small = writeSyntheticRun(join(root, 'synthetic--small', 'run-a'), { rollouts: 40, rolloutsPerExample: 1 });
  writeSyntheticRun(join(root, 'synthetic--small', 'run-b'), { rollouts: 40, rolloutsPerExample: 1, seed: 2 });
  writeSyntheticRun(join(outside, 'secret-run'), { rollouts: 3 });
  writeFileSync(join(outside, 'secret.txt'), 'do not serve');
  symlinkSync(join(outside, 'secret-run'), join(root, 'linked-run'));
  mkdirSync(join(root, 'link-results'));
  symlinkSync(join(outside, 'secret-run', 'results.jsonl'), join(root, 'link-results', 'results.jsonl'));
  // A terminal run's trial folder, with a symlink out of it.
  const trial = join(root, 'synthetic--small', 'run-a', 'task-one__abc1234');
  mkdirSync(join(trial, 'verifier'), { recursive: true });
  writeFileSync(join(trial, 'verifier', 'test-stdout.txt'), 'PASSED test_output\n');
  symlinkSync(join(outside, 'secret.txt'), join(trial, 'verifier', 'escape.txt'));
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  base = address;
}, 120_000);

afterAll(async () => {
  await app.close();
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe('viewer API', () => {
  it('lists every run under the folder with the numbers of metadata.json and the records, never one through a symlink', async () => {
    const { status, body } = await get('/api/runs');
    expect(status).toBe(200);
    const ids = body.runs.map((run: { id: string }) => run.id);
    expect(ids).toEqual(['synthetic--big/run-1', 'synthetic--small/run-a', 'synthetic--small/run-b']);
    const entry = body.runs.find((run: { id: string }) => run.id === 'synthetic--small/run-a');
    const summary = summarise(small, 1);
    expect(entry).toMatchObject({ env: 'synthetic', agent: 'openai', model: 'scripted-model', status: 'complete', rollouts: 40, errored: summary.errored });
    expect(entry.avg_reward).toBeCloseTo(summary.avg_reward!, 12);
  }, 120_000);

  it('summarises a 100,000-rollout run as summarise() does, with pass@k, histograms, errors and timing percentiles', async () => {
    const { status, body } = await get(`/api/run?run=${q('synthetic--big/run-1')}`);
    expect(status).toBe(200);
    const expected = summarise(big, 4);
    const statistics = body.statistics;
    expect(statistics.summary.rollouts).toBe(100_000);
    expect(statistics.summary.errored).toBe(expected.errored);
    expect(statistics.summary.avg_reward).toBeCloseTo(expected.avg_reward!, 12);
    expect(statistics.summary.passAtK).toEqual(expected.passAtK);
    expect(statistics.summary.errorsByCode).toEqual(expected.errorsByCode);
    expect(statistics.summary.usage).toEqual(expected.usage);
    expect(statistics.rewardHistogram.counts.reduce((a: number, b: number) => a + b, 0)).toBe(100_000 - expected.errored);
    expect(Object.keys(statistics.metricHistograms).sort()).toEqual(['correct', 'length']);
    expect(statistics.errorsByBoundary.model + statistics.errorsByBoundary.tool).toBe(expected.errored);
    expect(statistics.errorExamples.MODEL_ERR_HTTP_500.messages.length).toBeGreaterThan(0);
    expect(statistics.timingPercentiles.total_ms.max).toBe(Math.max(...big.map((record) => record.timing.total_ms)));
    expect(statistics.timingPercentiles.tools_ms.p50).toBeGreaterThanOrEqual(10);
    expect(statistics.groups.count).toBe(25_000);
  }, 120_000);

  it('pages, sorts and filters the rollout table over 100,000 rows', async () => {
    const run = q('synthetic--big/run-1');
    const first = await get(`/api/rollouts?run=${run}&limit=50`);
    expect(first.body.total).toBe(100_000);
    expect(first.body.rows.map((row: { line: number }) => row.line)).toEqual([...Array(50).keys()]);
    const last = await get(`/api/rollouts?run=${run}&offset=99990&limit=50`);
    expect(last.body.rows).toHaveLength(10);
    expect(last.body.rows[9].example_id).toBe(big[99_999]!.example_id);

    const errored = await get(`/api/rollouts?run=${run}&error=any&limit=5`);
    expect(errored.body.matched).toBe(big.filter((record) => record.error).length);
    expect(errored.body.rows.every((row: { error: unknown }) => row.error !== null)).toBe(true);
    const byCode = await get(`/api/rollouts?run=${run}&error=SBX_ERR_TIMEOUT&limit=1`);
    expect(byCode.body.matched).toBe(big.filter((record) => record.error?.code === 'SBX_ERR_TIMEOUT').length);

    const sorted = await get(`/api/rollouts?run=${run}&sort=${q('metric:length')}&order=desc&limit=3`);
    const maxLength = Math.max(...big.filter((record) => !record.error).map((record) => record.metrics.length!));
    expect(sorted.body.rows[0].metrics.length).toBe(maxLength);
    const rewardRange = await get(`/api/rollouts?run=${run}&min_reward=1&max_reward=1&limit=1`);
    expect(rewardRange.body.matched).toBe(big.filter((record) => record.reward === 1).length);
    const text = await get(`/api/rollouts?run=${run}&q=${q('EX-000123')}`);
    expect(text.body.rows.map((row: { example_id: string }) => row.example_id)).toEqual(['ex-000123', 'ex-000123', 'ex-000123', 'ex-000123']);
  }, 120_000);

  it('reads one rollout back by its line, with the trial folder files of a terminal run (symlinks listed, never read)', async () => {
    const { body } = await get(`/api/rollout?run=${q('synthetic--big/run-1')}&line=76543`);
    expect(body.record).toEqual(big[76_543]);
    expect(body.lines).toBe(100_000);

    const terminal = join(root, 'synthetic--small', 'run-a');
    const record = { ...syntheticRecord(40, 1), info: { trial_name: 'task-one__abc1234' } };
    appendFileSync(join(terminal, 'results.jsonl'), `${JSON.stringify(record)}\n`);
    const trial = await get(`/api/rollout?run=${q('synthetic--small/run-a')}&line=40`);
    expect(trial.body.files).toEqual([
      { path: 'task-one__abc1234/verifier/escape.txt', bytes: expect.any(Number), symlink: true },
      { path: 'task-one__abc1234/verifier/test-stdout.txt', bytes: Buffer.byteLength('PASSED test_output\n'), symlink: false },
    ]);
    expect(trial.body.texts['task-one__abc1234/verifier/test-stdout.txt']).toBe('PASSED test_output\n');
    const escape = await get(`/api/file?run=${q('synthetic--small/run-a')}&path=${q('task-one__abc1234/verifier/escape.txt')}`);
    expect(escape.status).toBe(403);
    expect(escape.body.error.code).toBe('VIEW_ERR_OUTSIDE_ROOT');
    expect(JSON.stringify(escape.body)).not.toContain('do not serve');
  }, 120_000);

  it.each([
    ['a run id with ..', `/api/run?run=${q('../' + 'x')}`, 403],
    ['an absolute run id', `/api/run?run=${q(outside)}`, 403],
    ['a run folder that is a symlink out', `/api/run?run=linked-run`, 403],
    ['a results.jsonl that is a symlink', `/api/rollouts?run=link-results`, 403],
    ['a file path with ..', `/api/file?run=${q('synthetic--small/run-a')}&path=${q('../../../' + 'etc/passwd')}`, 403],
    ['a run that does not exist', `/api/run?run=nothing-here`, 404],
    ['a line past the end', `/api/rollout?run=${q('synthetic--small/run-b')}&line=40`, 404],
    ['a malformed line', `/api/rollout?run=${q('synthetic--small/run-b')}&line=-1`, 400],
    ['an unknown sort', `/api/rollouts?run=${q('synthetic--small/run-b')}&sort=${q('constructor')}`, 400],
  ])(
    'refuses %s',
    async (_what, path, status) => {
      const response = await get(path);
      expect(response.status).toBe(status);
      expect(response.body.error.code).toMatch(/^VIEW_ERR_/);
      expect(JSON.stringify(response.body)).not.toContain('do not serve');
    },
    120_000,
  );

  it('refuses a foreign Host (DNS rebinding) and a cross-site Origin', async () => {
    expect(await statusWithHost('evil.example')).toBe(403);
    expect(await statusWithHost(new URL(base).host)).toBe(200);
    expect((await get('/api/runs', { origin: 'https://evil.example' })).status).toBe(403);
    expect((await get('/api/runs', { origin: base })).status).toBe(200);
  }, 120_000);

  it('compares two runs of one environment: flips and per-example differences', async () => {
    const { body } = await get(`/api/compare?a=${q('synthetic--small/run-a')}&b=${q('synthetic--small/run-b')}`);
    const b = writeSyntheticRun(join(outside, 'b-again'), { rollouts: 40, seed: 2 });
    const a = small;
    let gained = 0;
    let lost = 0;
    for (let index = 0; index < 40; index++) {
      const [left, right] = [a[index]!, b[index]!];
      if (left.error || right.error) continue;
      if (left.reward === 1 && right.reward !== 1) lost++;
      if (left.reward !== 1 && right.reward === 1) gained++;
    }
    expect(body.comparison.shared).toBe(40);
    expect(body.comparison.gained).toBe(gained);
    expect(body.comparison.lost).toBe(lost);
    expect(gained + lost).toBeGreaterThan(0);
    expect(body.comparison.examples[0].flip).not.toBeNull();
  }, 120_000);

  it('compare names the lineage: a re-score of A is called a re-score of A, a replay of a run elsewhere names its path', async () => {
    const withLineage = (name: string, lineage: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
      const directory = join(root, 'synthetic--small', name);
      writeSyntheticRun(directory, { rollouts: 40, rolloutsPerExample: 1, seed: 3 });
      const path = join(directory, 'metadata.json');
      writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, 'utf8')), ...extra, lineage }));
    };
    withLineage('run-rescored', {
      kind: 'rescore',
      source_run: join(root, 'synthetic--small', 'run-a'),
      env: 'wiki-search',
      env_source: { kind: 'built-in', name: 'wiki-search', corral_version: '0.1.0' },
      repeats: 5,
    });
    withLineage(
      'run-replayed',
      { kind: 'replay', source_run: '/elsewhere/run', from_turn: 2, tools: 'recorded', replays_per_trajectory: 1 },
      { agent: 'openai', model: 'm2' },
    );
    const rescored = (await get(`/api/compare?a=${q('synthetic--small/run-a')}&b=${q('synthetic--small/run-rescored')}`)).body;
    expect(rescored.comparison.lineage).toEqual([
      'B re-scores A with wiki-search (built-in, corral 0.1.0), 5 scorings per trajectory: same trajectories, new rewards',
    ]);
    const replayed = (await get(`/api/compare?a=${q('synthetic--small/run-replayed')}&b=${q('synthetic--small/run-a')}`)).body;
    expect(replayed.comparison.lineage).toEqual([
      "A replays /elsewhere/run from turn 2 with openai (m2), recorded tools: turns before it are /elsewhere/run's",
    ]);
    const unrelated = (await get(`/api/compare?a=${q('synthetic--small/run-a')}&b=${q('synthetic--small/run-b')}`)).body;
    expect(unrelated.comparison.lineage).toEqual([]);
  }, 120_000);

  it('extends the index as results.jsonl grows, skips a half-written line until it ends, and re-reads a rewritten file', async () => {
    const directory = join(root, 'growing', 'run');
    writeSyntheticRun(directory, { rollouts: 5, status: 'running' });
    const run = q('growing/run');
    expect((await get(`/api/rollouts?run=${run}`)).body.total).toBe(5);
    const next = JSON.stringify(syntheticRecord(5, 1));
    appendFileSync(join(directory, 'results.jsonl'), next.slice(0, 40));
    expect((await get(`/api/rollouts?run=${run}`)).body.total).toBe(5);
    appendFileSync(join(directory, 'results.jsonl'), `${next.slice(40)}\n`);
    const grown = await get(`/api/rollouts?run=${run}&sort=line&order=desc&limit=1`);
    expect(grown.body.total).toBe(6);
    expect(grown.body.rows[0].example_id).toBe('ex-000005');
    expect((await get(`/api/rollout?run=${run}&line=5`)).body.record).toEqual(JSON.parse(next));
    writeSyntheticRun(directory, { rollouts: 2, status: 'complete' });
    expect((await get(`/api/rollouts?run=${run}`)).body.total).toBe(2);
  }, 120_000);

  it('streams a live run: one event now, another when lines are appended', async () => {
    const directory = join(root, 'live', 'run');
    writeSyntheticRun(directory, { rollouts: 3, status: 'running' });
    const controller = new AbortController();
    const response = await fetch(`${base}/api/events?run=${q('live/run')}`, { signal: controller.signal });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const waitFor = async (needle: string) => {
      while (!text.includes(needle)) text += decoder.decode((await reader.read()).value);
    };
    await waitFor('"rollouts":3');
    appendFileSync(join(directory, 'results.jsonl'), `${JSON.stringify(syntheticRecord(3, 1))}\n${JSON.stringify(syntheticRecord(4, 1))}\n`);
    await waitFor('"rollouts":5');
    expect(text).toContain('event: rollouts');
    controller.abort();
  }, 120_000);

  it('serves the built page and only its fixed assets', async () => {
    const page = await fetch(`${base}/`);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('assets/app.js');
    expect((await fetch(`${base}/assets/app.js`)).status).toBe(200);
    expect((await fetch(`${base}/assets/..%2f..%2fpackage.json`)).status).toBe(404);
  }, 120_000);
});
