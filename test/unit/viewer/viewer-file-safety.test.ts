/**
 * What the viewer reads from disk, through a real server on a port: no file is reached through a symlink leaving
 * the runs folder (metadata.json, results.jsonl swapped after it was indexed, a run folder swapped for a link, a
 * session log, trial folders), alias spellings of one run id share one cached run, the cache is bounded, and a
 * malformed record is counted and reported while the good rows are shown.
 */
import { appendFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildViewerServer } from '../../../src/http/viewer-server.js';
import { RunCatalog } from '../../../src/viewer/run-catalog.js';
import { syntheticRecord, writeSyntheticRun } from '../../../benchmarks/view-synthetic-run.js';

const root = mkdtempSync(join(tmpdir(), 'corral-viewer-safety-'));
const outside = mkdtempSync(join(tmpdir(), 'corral-viewer-safety-outside-'));
const SECRET = 'leaked-secret-value';
const app = buildViewerServer({ root, host: '127.0.0.1', tailIntervalMs: 50 });
let base = '';

const get = async (path: string) => {
  const response = await fetch(`${base}${path}`);
  const text = await response.text();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tests read JSON bodies field by field
  return { status: response.status, text, body: JSON.parse(text) as Record<string, any> };
};
const q = encodeURIComponent;

beforeAll(async () => {
  // Outside the runs folder: a JSON file and a run whose every value is the secret.
  writeFileSync(join(outside, 'secret.json'), JSON.stringify({ env: SECRET, model: SECRET, status: 'complete', rollouts: 7, api_key: SECRET }));
  writeFileSync(join(outside, 'secret.txt'), SECRET);
  mkdirSync(join(outside, 'secret-run'));
  writeFileSync(join(outside, 'secret-run', 'results.jsonl'), `${JSON.stringify({ ...syntheticRecord(0, 1), example_id: SECRET })}\n`);
  writeFileSync(join(outside, 'secret-run', 'metadata.json'), JSON.stringify({ env: SECRET }));
  base = await app.listen({ host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await app.close();
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe('the viewer never reads through a symlink out of its folder', () => {
  it('ignores a metadata.json that is a symlink (runs list and run page)', async () => {
    const directory = join(root, 'linked-meta', 'run');
    writeSyntheticRun(directory, { rollouts: 4 });
    rmSync(join(directory, 'metadata.json'));
    symlinkSync(join(outside, 'secret.json'), join(directory, 'metadata.json'));
    const runs = await get('/api/runs');
    expect(runs.status).toBe(200);
    expect(runs.body.runs.map((run: { id: string }) => run.id)).toContain('linked-meta/run');
    expect(runs.text).not.toContain(SECRET);
    const run = await get(`/api/run?run=${q('linked-meta/run')}`);
    expect(run.status).toBe(200);
    expect(run.body.metadata).toBeNull();
    expect(run.body.statistics.summary.rollouts).toBe(4);
    expect(run.text).not.toContain(SECRET);
  });

  it('refuses a results.jsonl replaced by a symlink after the run was indexed', async () => {
    const directory = join(root, 'swapped-results', 'run');
    writeSyntheticRun(directory, { rollouts: 3 });
    expect((await get(`/api/rollouts?run=${q('swapped-results/run')}`)).body.total).toBe(3);
    rmSync(join(directory, 'results.jsonl'));
    symlinkSync(join(outside, 'secret-run', 'results.jsonl'), join(directory, 'results.jsonl'));
    for (const path of [`/api/rollouts?run=${q('swapped-results/run')}`, `/api/rollout?run=${q('swapped-results/run')}&line=0`]) {
      const response = await get(path);
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('VIEW_ERR_OUTSIDE_ROOT');
      expect(response.text).not.toContain(SECRET);
    }
  });

  it('refuses a run folder replaced by a symlink after the run was indexed', async () => {
    const directory = join(root, 'swapped-folder', 'run');
    writeSyntheticRun(directory, { rollouts: 3 });
    expect((await get(`/api/run?run=${q('swapped-folder/run')}`)).status).toBe(200);
    renameSync(directory, join(root, 'swapped-folder', 'moved-away'));
    symlinkSync(join(outside, 'secret-run'), directory);
    for (const path of [
      `/api/run?run=${q('swapped-folder/run')}`,
      `/api/rollouts?run=${q('swapped-folder/run')}`,
      `/api/rollout?run=${q('swapped-folder/run')}&line=0`,
    ]) {
      const response = await get(path);
      expect(response.status).toBe(403);
      expect(response.text).not.toContain(SECRET);
    }
  });

  it('shows a rollout whose session log or trial folder is a symlink without reading either', async () => {
    const directory = join(root, 'linked-trial', 'run');
    writeSyntheticRun(directory, { rollouts: 0 });
    symlinkSync(join(outside, 'secret.txt'), join(directory, 'session.log'));
    symlinkSync(outside, join(directory, 'trial-linked'));
    mkdirSync(join(directory, 'trial-inner'));
    symlinkSync(outside, join(directory, 'trial-inner', 'verifier'));
    const records = [
      { ...syntheticRecord(0, 1), info: { session_log_file: 'session.log' } },
      { ...syntheticRecord(1, 1), info: { trial_name: 'trial-linked' } },
      { ...syntheticRecord(2, 1), info: { trial_name: 'trial-inner' } },
    ];
    appendFileSync(join(directory, 'results.jsonl'), records.map((record) => `${JSON.stringify(record)}\n`).join(''));
    const log = await get(`/api/rollout?run=${q('linked-trial/run')}&line=0`);
    expect(log.status).toBe(200);
    expect(log.body.session_log).toBeNull();
    expect(log.text).not.toContain(SECRET);
    const linkedTrial = await get(`/api/rollout?run=${q('linked-trial/run')}&line=1`);
    expect(linkedTrial.body.files).toEqual([]);
    const inner = await get(`/api/rollout?run=${q('linked-trial/run')}&line=2`);
    expect(inner.body.files).toEqual([{ path: 'trial-inner/verifier', bytes: expect.any(Number), symlink: true }]);
    expect(inner.text).not.toContain(SECRET);
    expect((await get(`/api/file?run=${q('linked-trial/run')}&path=${q('trial-inner/verifier/secret.txt')}`)).status).toBe(403);
  });
});

describe('run ids and the run cache', () => {
  it('answers alias spellings of one run id with its canonical id', async () => {
    writeSyntheticRun(join(root, 'alias', 'run'), { rollouts: 5 });
    for (const alias of ['./alias/run', 'alias//run', 'alias/./run/', 'alias/run/.']) {
      const response = await get(`/api/run?run=${q(alias)}`);
      expect(response.status).toBe(200);
      expect(response.body.id).toBe('alias/run');
    }
  });

  it('holds one run state for every alias, and evicts the least recently used run beyond its bound', () => {
    const folder = mkdtempSync(join(tmpdir(), 'corral-viewer-cache-'));
    try {
      for (const name of ['a', 'b', 'c']) writeSyntheticRun(join(folder, name), { rollouts: 2 });
      const catalog = new RunCatalog(folder, { maxCachedRuns: 2 });
      const first = catalog.run('a');
      for (let index = 0; index < 120; index++) expect(catalog.run(`${'./'.repeat(index % 5)}a${'/'.repeat(index % 3)}`)).toBe(first);
      expect(catalog.cachedRunIds()).toEqual(['a']);
      catalog.run('b');
      catalog.run('a');
      catalog.run('c');
      expect(catalog.cachedRunIds()).toEqual(['a', 'c']);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('malformed records', () => {
  it('shows the good rows and counts and reports the bad lines', async () => {
    const directory = join(root, 'malformed', 'run');
    writeSyntheticRun(directory, { rollouts: 0, status: 'running' });
    const good = [0, 1, 2, 3].map((index) => JSON.stringify(syntheticRecord(index, 1)));
    const lines = [good[0], '{"example_id": "bad-1", "error": {}}', good[1], 'this is not json', good[2], '[1, 2]', good[3]];
    writeFileSync(join(directory, 'results.jsonl'), `${lines.join('\n')}\n`);
    for (let attempt = 0; attempt < 2; attempt++) {
      const rollouts = await get(`/api/rollouts?run=${q('malformed/run')}`);
      expect(rollouts.status).toBe(200);
      expect(rollouts.body.total).toBe(4);
      expect(rollouts.body.rows.map((row: { line: number }) => row.line)).toEqual([0, 2, 4, 6]);
      expect(rollouts.body.bad_lines).toBe(3);
    }
    const run = await get(`/api/run?run=${q('malformed/run')}`);
    expect(run.body.statistics.summary.rollouts).toBe(4);
    expect(run.body.bad_lines.count).toBe(3);
    expect(run.body.bad_lines.examples.map((bad: { line: number }) => bad.line)).toEqual([1, 3, 5]);
    expect(run.body.bad_lines.examples[1].reason).toMatch(/JSON/);
    const entry = (await get('/api/runs')).body.runs.find((candidate: { id: string }) => candidate.id === 'malformed/run');
    expect(entry).toMatchObject({ rollouts: 4, bad_lines: 3 });
    const bad = await get(`/api/rollout?run=${q('malformed/run')}&line=1`);
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe('VIEW_ERR_BAD_RECORD');
  });
});
