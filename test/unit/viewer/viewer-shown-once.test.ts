/**
 * What the run, rollout and compare APIs hand the page, through a real server on a port: metrics that duplicate the
 * viewer's own columns (a verifier's `reward`, rubric-recorded `turns` / `tool_calls`) are not shown again, a
 * histogram of equal values is one bar at that value, a terminal trial's test output is inlined (not the empty
 * test-stdout.txt), and a comparison warns when the runs ran other environments or env args.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildViewerServer } from '../../../src/http/viewer-server.js';
import { syntheticRecord, writeSyntheticRun } from '../../../benchmarks/view-synthetic-run.js';

const root = mkdtempSync(join(tmpdir(), 'corral-viewer-once-'));
const app = buildViewerServer({ root, host: '127.0.0.1' });
let base = '';
const q = encodeURIComponent;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tests read JSON bodies field by field
const get = async (path: string): Promise<Record<string, any>> => (await fetch(`${base}${path}`)).json() as Promise<Record<string, any>>;

/** A terminal-like run: every reward 1, the verifier's reward also a metric, turns and tool_calls recorded by the rubric. */
function writeTerminalRun(directory: string, envArgs: Record<string, unknown>): void {
  writeSyntheticRun(directory, { rollouts: 0 });
  const lines = [0, 1, 2].map((index) => {
    const record = syntheticRecord(index, 1);
    return JSON.stringify({
      ...record,
      error: null,
      reward: 1,
      metrics: { reward: 1, turns: 9, tool_calls: 4, passed: 1 },
      info: { trial_name: `task-${index}__x` },
    });
  });
  writeFileSync(join(directory, 'results.jsonl'), `${lines.join('\n')}\n`);
  const metadata = JSON.parse(readFileSync(join(directory, 'metadata.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(directory, 'metadata.json'), JSON.stringify({ ...metadata, env: 'terminal', env_args: envArgs }));
  const verifier = join(directory, 'task-0__x', 'verifier');
  mkdirSync(verifier, { recursive: true });
  writeFileSync(join(verifier, 'test-stdout.txt'), '');
  writeFileSync(join(verifier, 'test-output.txt'), '3 passed in 0.12s\n');
  writeFileSync(join(verifier, 'reward.txt'), '1\n');
}

beforeAll(async () => {
  writeTerminalRun(join(root, 'terminal--a', 'run'), { tasks: 'tasks/', args: { level: 'easy' } });
  writeTerminalRun(join(root, 'terminal--b', 'run'), { args: { level: 'hard' }, tasks: 'tasks/' });
  writeTerminalRun(join(root, 'terminal--c', 'run'), { args: { level: 'easy' }, tasks: 'tasks/' });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await app.close();
  rmSync(root, { recursive: true, force: true });
});

describe('the viewer shows each number once', () => {
  it('leaves reward, turns and tool_calls out of the metric columns and histograms; equal rewards make one bin', async () => {
    const { statistics } = await get(`/api/run?run=${q('terminal--a/run')}`);
    expect(Object.keys(statistics.metricHistograms)).toEqual(['passed']);
    expect(statistics.rewardHistogram).toEqual({ min: 1, max: 1, counts: [3] });
    expect(statistics.metricHistograms.passed).toEqual({ min: 1, max: 1, counts: [3] });
  });

  it("inlines the verifier's non-empty files (the test output), not the empty test-stdout.txt", async () => {
    const { texts } = await get(`/api/rollout?run=${q('terminal--a/run')}&line=0`);
    expect(texts).toEqual({ 'task-0__x/verifier/reward.txt': '1\n', 'task-0__x/verifier/test-output.txt': '3 passed in 0.12s\n' });
  });

  it('warns when the compared runs used different env args, and not when only their key order differs', async () => {
    const different = await get(`/api/compare?a=${q('terminal--a/run')}&b=${q('terminal--b/run')}`);
    expect(different.comparison.warnings).toHaveLength(1);
    expect(different.comparison.warnings[0]).toMatch(/different env args.*easy.*hard/);
    const same = await get(`/api/compare?a=${q('terminal--a/run')}&b=${q('terminal--c/run')}`);
    expect(same.comparison.warnings).toEqual([]);
  });
});
