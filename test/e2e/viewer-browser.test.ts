/**
 * The run viewer in headless Chromium (Debian's chromium driven by playwright-core): the runs list, a
 * 100,000-rollout run, a rollout with j/k navigation, a comparison and a live run receiving new lines, each
 * asserting that what the page shows is what metadata.json and the records say. Screenshots land in
 * .cache/viewer-screenshots/; the run and rollout pages are also copied to docs/images/ for the README.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type Page, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildViewerServer } from '../../src/http/viewer-server.js';
import type { ResultRecord } from '../../src/runner/trajectory/result-record.js';
import { syntheticRecord, writeSyntheticRun } from '../../benchmarks/view-synthetic-run.js';
import { gate } from '../helpers/test-gates.js';
import { runCorral } from './runner-cli.js';

/** The page-side globals these tests touch (the project compiles without the DOM library). */
interface PageGlobals {
  document: { querySelector(selector: string): { textContent: string | null } | null; querySelectorAll(selector: string): { length: number } };
}

const CHROMIUM = '/usr/bin/chromium';
const ROOT = new URL('../..', import.meta.url).pathname;
const SCREENSHOTS = join(ROOT, '.cache', 'viewer-screenshots');
const haveChromium = gate('headless Chromium', existsSync(CHROMIUM) ? null : `${CHROMIUM} is missing (scripts/setup.sh installs Debian's chromium)`);

const root = mkdtempSync(join(tmpdir(), 'corral-viewer-browser-'));
const app = buildViewerServer({ root, host: '127.0.0.1', tailIntervalMs: 100 });
let base = '';
let browser: Browser;
let page: Page;
let big: ResultRecord[] = [];
let runA: ResultRecord[] = [];
let runB: ResultRecord[] = [];
const BIG = 'synthetic--scripted-model/big';
const CANARIES = 'capitals-one-broken--guesser/canaries';
let canaryRun: { code: number | null; stderr: string } = { code: null, stderr: '' };
const metadataOf = (id: string) => JSON.parse(readFileSync(join(root, id, 'metadata.json'), 'utf8')) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const text = (selector: string) => page.locator(selector).first().innerText();
const shoot = async (name: string) => {
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path });
  return path;
};

beforeAll(async () => {
  if (!haveChromium) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  big = writeSyntheticRun(join(root, BIG), { rollouts: 100_000, rolloutsPerExample: 4 });
  runA = writeSyntheticRun(join(root, 'synthetic--scripted-model/a'), { rollouts: 60 });
  runB = writeSyntheticRun(join(root, 'synthetic--scripted-model/b'), { rollouts: 60, seed: 2 });
  writeSyntheticRun(join(root, 'synthetic--scripted-model/live'), { rollouts: 10, status: 'running' });
  // A real run with live canaries: five capitals, one of them (atlantis) broken (an empty gold answer the rubric pays).
  canaryRun = await runCorral([
    'eval',
    join(ROOT, 'test', 'fixtures', 'canaries', 'one-broken-example.ts'),
    '--agent',
    'guesser',
    '--canaries',
    '1',
    '-r',
    '2',
    '--backend',
    'process',
    '--no-progress',
    '--out',
    join(root, CANARIES),
  ]);
  base = await app.listen({ host: '127.0.0.1', port: 0 });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-background-networking'] });
  page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  page.on('pageerror', (error) => console.error(`[viewer page] ${error.message}`));
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await app.close();
  rmSync(root, { recursive: true, force: true });
});

describe.runIf(haveChromium)('run viewer in headless Chromium', () => {
  it('lists the runs with the numbers metadata.json holds', async () => {
    await page.goto(`${base}/`);
    await page.waitForSelector(`tr[data-run="${BIG}"]`);
    for (const id of [BIG, 'synthetic--scripted-model/a']) {
      const metadata = metadataOf(id);
      const row = page.locator(`tr[data-run="${id}"]`);
      expect(await row.locator('[data-field=rollouts]').innerText()).toBe(metadata.rollouts.toLocaleString('en-US'));
      expect(await row.locator('[data-field=errored]').innerText()).toBe(metadata.errored.toLocaleString('en-US'));
      expect(await row.locator('[data-field=avg_reward]').innerText()).toBe(metadata.avg_reward.toFixed(3));
    }
    expect(await page.locator('tr[data-run="synthetic--scripted-model/live"] .status').innerText()).toBe('running');
    await page.fill('[data-testid=runs-filter]', 'live');
    expect(await page.locator('[data-testid=runs-table] tbody tr').count()).toBe(1);
    await shoot('runs');
  }, 180_000);

  it('opens a 100,000-rollout run: summary, charts, errors, and a table that sorts, filters and pages', async () => {
    const metadata = metadataOf(BIG);
    await page.goto(`${base}/#/run/${encodeURIComponent(BIG)}`);
    await page.waitForSelector('[data-testid=rollouts-table] tbody tr');
    expect(await text('[data-testid=run-rollouts]')).toBe('100,000');
    expect(await text('[data-testid=run-errored]')).toBe(metadata.errored.toLocaleString('en-US'));
    expect(await text('[data-testid=run-mean-reward]')).toBe(metadata.avg_reward.toFixed(4));
    for (const [k, value] of Object.entries(metadata.pass_at_k as Record<string, number>))
      expect(await text(`[data-testid=run-pass-at-${k}]`)).toBe(value.toFixed(4));
    expect(await page.locator('[data-testid=reward-histogram] canvas').count()).toBe(1);
    expect(await page.locator('[data-testid=errors-table] tbody tr').count()).toBe(Object.keys(metadata.errors_by_code).length);
    expect(await page.locator('[data-testid=rollouts-table] tbody tr').count()).toBe(50);
    const path = await shoot('run');
    copyFileSync(path, join(ROOT, 'docs', 'images', 'viewer-run.png'));

    await page.click('th[data-sort=reward]');
    await page.waitForFunction(
      () => (globalThis as unknown as PageGlobals).document.querySelector('[data-testid=rollouts-table] tbody tr [data-field=reward]')?.textContent === '1.000',
    );
    await page.click('[data-testid=rollouts-next]');
    await page.waitForFunction(() => (globalThis as unknown as PageGlobals).document.querySelector('[data-testid=rollouts-range]')?.textContent === '51–100');
    await page.selectOption('[data-testid=rollouts-error]', 'MODEL_ERR_HTTP_500');
    const expected = big.filter((record) => record.error?.code === 'MODEL_ERR_HTTP_500').length.toLocaleString('en-US');
    await page.waitForFunction(
      (count) => (globalThis as unknown as PageGlobals).document.querySelector('[data-testid=rollouts-matched]')?.textContent?.startsWith(`${count} of`),
      expected,
    );
    expect(await page.locator('[data-testid=rollouts-table] tbody tr.errored').count()).toBe(50);
  }, 180_000);

  it('opens a rollout as a conversation with its tool call, timings and logprob strip; j and k move between rollouts', async () => {
    const line = 1230;
    const record = big[line]!;
    await page.goto(`${base}/#/rollout/${encodeURIComponent(BIG)}/${line}`);
    await page.waitForSelector('[data-testid=rollout-title]');
    expect(await text('[data-testid=rollout-title]')).toContain(record.example_id);
    expect(await text('[data-testid=rollout-reward]')).toBe(record.reward!.toFixed(4));
    expect(await page.locator('[data-role=assistant]').count()).toBe(2);
    expect(await page.locator('[data-testid=tool-call] .args').innerText()).toContain(`print(${Number(record.example_id.slice(3))} + 1)`);
    expect(await page.locator('[data-testid=logprob-strip] span').count()).toBe(record.tokens![0]!.completion_logprobs!.length);
    expect(await text('[data-testid=final-answer]')).toBe(record.final_answer);
    const path = await shoot('rollout');
    copyFileSync(path, join(ROOT, 'docs', 'images', 'viewer-rollout.png'));

    // Neighbouring lines often share an example id (rollouts #2 and #3 of one example), so wait for id and index
    // together: waiting for the id alone passed before the page had moved.
    const titleShows = async (expected: { example_id: string; rollout_index: number }) =>
      page.waitForFunction(
        ({ id, index }) => {
          const title = (globalThis as unknown as PageGlobals).document.querySelector('[data-testid=rollout-title]')?.textContent ?? '';
          return title.includes(id) && title.includes(`#${index}`);
        },
        { id: expected.example_id, index: expected.rollout_index },
      );
    await page.keyboard.press('j');
    await titleShows(big[line + 1]!);
    expect(await text('[data-testid=rollout-title]')).toContain(`${big[line + 1]!.example_id} #${big[line + 1]!.rollout_index}`);
    await page.keyboard.press('k');
    await titleShows(record);
    expect(await text('[data-testid=rollout-title]')).toContain(`${record.example_id} #${record.rollout_index}`);

    const errored = big.findIndex((candidate) => candidate.error !== null);
    await page.goto(`${base}/#/rollout/${encodeURIComponent(BIG)}/${errored}`);
    await page.waitForSelector('[data-testid=rollout-error]');
    expect(await text('[data-testid=rollout-error]')).toContain(big[errored]!.error!.code);
  }, 180_000);

  it('runs canaries that quarantine exactly the broken example, kept out of the statistics, and shows the quarantine', async () => {
    expect(canaryRun.code, canaryRun.stderr).toBe(0);
    const metadata = metadataOf(CANARIES);
    expect(metadata.canaries).toEqual({
      rate: 1,
      canaried_examples: 5,
      quarantined: [{ example_id: 'atlantis', reasons: ['floor-scored'], oracle_reward: 1, floor_reward: 1, oracle_error: null }],
    });
    // The run's own rollouts only (5 examples x 2): the 10 canary rollouts are in canaries.jsonl, not in any number.
    const records = readFileSync(join(root, CANARIES, 'results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as ResultRecord);
    expect(records).toHaveLength(10);
    expect(metadata.rollouts).toBe(10);
    expect(metadata.avg_reward).toBe(0.2);
    expect(records.filter((record) => record.quarantine).map((record) => `${record.example_id}#${record.rollout_index}`)).toEqual(['atlantis#0', 'atlantis#1']);
    expect(
      readFileSync(join(root, CANARIES, 'canaries.jsonl'), 'utf8')
        .trim()
        .split('\n'),
    ).toHaveLength(5);

    await page.goto(`${base}/#/run/${encodeURIComponent(CANARIES)}`);
    await page.waitForSelector('[data-testid=quarantine]');
    expect(await text('[data-testid=quarantine-head]')).toContain('5 examples checked, 1 quarantined');
    expect(await page.locator('[data-testid=quarantined-example]').count()).toBe(1);
    expect(await text('[data-testid=quarantined-example]')).toBe('atlantis: floor-scored · oracle 1.000 · empty answer 1.000');
    expect(await text('[data-testid=run-rollouts]')).toBe('10');
    await shoot('quarantine');
  }, 180_000);

  it('compares two runs: means side by side and the flipped examples', async () => {
    await page.goto(`${base}/#/compare/${encodeURIComponent('synthetic--scripted-model/a')}/${encodeURIComponent('synthetic--scripted-model/b')}`);
    await page.waitForSelector('[data-testid=compare-examples] tbody tr');
    let gained = 0;
    let lost = 0;
    for (let index = 0; index < runA.length; index++) {
      const [a, b] = [runA[index]!, runB[index]!];
      if (a.reward === 1 && b.reward !== 1) lost++;
      if (a.reward !== 1 && b.reward === 1) gained++;
    }
    expect(await text('[data-testid=compare-gained]')).toBe(`${gained} gained`);
    expect(await text('[data-testid=compare-lost]')).toBe(`${lost} lost`);
    expect(await text('[data-field=mean-A]')).toBe(metadataOf('synthetic--scripted-model/a').avg_reward.toFixed(4));
    expect(await text('[data-field=mean-B]')).toBe(metadataOf('synthetic--scripted-model/b').avg_reward.toFixed(4));
    expect(await page.locator('[data-testid=compare-examples] tbody tr.gained').count()).toBe(gained);
    await shoot('compare');
  }, 180_000);

  it('updates a live run as results.jsonl grows, without a reload', async () => {
    const id = 'synthetic--scripted-model/live';
    await page.goto(`${base}/#/run/${encodeURIComponent(id)}`);
    await page.waitForSelector('[data-testid=rollouts-table] tbody tr');
    expect(await text('[data-testid=run-status]')).toBe('running');
    expect(await text('[data-testid=run-rollouts]')).toBe('10');
    await page.evaluate(() => ((globalThis as unknown as { marker: number }).marker = 42));
    const lines = Array.from({ length: 5 }, (_, index) => JSON.stringify(syntheticRecord(10 + index, 1))).join('\n');
    appendFileSync(join(root, id, 'results.jsonl'), `${lines}\n`);
    await page.waitForFunction(() => (globalThis as unknown as PageGlobals).document.querySelector('[data-testid=run-rollouts]')?.textContent === '15');
    await page.waitForFunction(() => (globalThis as unknown as PageGlobals).document.querySelectorAll('[data-testid=rollouts-table] tbody tr').length === 15);
    expect(await page.evaluate(() => (globalThis as unknown as { marker?: number }).marker)).toBe(42);
    await shoot('live');
  }, 180_000);

  it('`corral view DIR` serves the same page on 127.0.0.1 and prints its URL', async () => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'corral.mjs'), 'view', root, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let output = '';
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          const match = /at (http:\/\/127\.0\.0\.1:\d+)\//.exec(output);
          if (match) resolve(match[1]!);
        });
        child.once('exit', (code) => reject(new Error(`corral view exited ${code}: ${output}`)));
      });
      await page.goto(`${url}/`);
      await page.waitForSelector(`tr[data-run="${BIG}"]`);
      // Every run under root by now: the big one, runs A and B, the canary run and the live run.
      expect(await page.locator('[data-testid=runs-table] tbody tr').count()).toBe(5);
    } finally {
      child.kill('SIGTERM');
    }
  }, 180_000);
});
