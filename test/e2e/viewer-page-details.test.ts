/**
 * The run viewer's page in headless Chromium, on small runs: each number shown once (no second reward, turns or
 * tool-calls column or card), whole numbers without decimals, one bar for equal rewards, every gold answer, long
 * tool results folded, the verifier's test output inline, the lines that are not records reported, and a
 * comparison that warns when the runs used different env args.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type Page, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildViewerServer } from '../../src/http/viewer-server.js';
import { syntheticRecord, writeSyntheticRun } from '../../benchmarks/view-synthetic-run.js';
import { gate } from '../helpers/test-gates.js';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = gate('headless Chromium', existsSync(CHROMIUM) ? null : `${CHROMIUM} is missing (scripts/setup.sh installs Debian's chromium)`);
const root = mkdtempSync(join(tmpdir(), 'corral-viewer-details-'));
const app = buildViewerServer({ root, host: '127.0.0.1' });
const LONG_PAGE = Array.from({ length: 80 }, (_, index) => `Paragraph ${index} of a long page read whole by the agent.`).join('\n');
let base = '';
let browser: Browser;
let page: Page;
const text = (selector: string) => page.locator(selector).first().innerText();

/** A terminal-like run: every reward 1, the verifier's reward also a metric, turns and tool_calls recorded by the rubric. */
function writeRun(id: string, envArgs: Record<string, unknown>, extraLines: string[] = []): void {
  const directory = join(root, id);
  writeSyntheticRun(directory, { rollouts: 0 });
  const lines = [0, 1, 2].map((index) => {
    const record = syntheticRecord(index, 1);
    const completion = record.completion.map((message) => (message.role === 'tool' ? { ...message, content: LONG_PAGE } : message));
    return JSON.stringify({
      ...record,
      completion,
      error: null,
      reward: 1,
      metrics: { reward: 1, turns: 9, tool_calls: 4, steps: 9 },
      answer: 'Amazonia',
      info: { trial_name: `task-${index}__x`, answers: ['Amazonia', 'the Amazon Jungle', 'Amazonia or the Amazon Jungle'] },
    });
  });
  writeFileSync(join(directory, 'results.jsonl'), `${[...lines, ...extraLines].join('\n')}\n`);
  const metadata = JSON.parse(readFileSync(join(directory, 'metadata.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(directory, 'metadata.json'), JSON.stringify({ ...metadata, env: 'terminal', env_args: envArgs }));
  const verifier = join(directory, 'task-0__x', 'verifier');
  mkdirSync(verifier, { recursive: true });
  writeFileSync(join(verifier, 'test-stdout.txt'), '');
  writeFileSync(join(verifier, 'test-output.txt'), '===== 3 passed in 0.12s =====\n');
}

beforeAll(async () => {
  if (!haveChromium) return;
  writeRun('terminal/a', { args: { level: 'easy' } }, ['{"example_id": "broken", "error": {}}', 'not json']);
  writeRun('terminal/b', { args: { level: 'hard' } });
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

describe.runIf(haveChromium)('run viewer details in headless Chromium', () => {
  it('run page: one reward, turns and tool-calls column each, whole numbers, one bar for equal rewards, bad lines reported', async () => {
    await page.goto(`${base}/#/run/${encodeURIComponent('terminal/a')}`);
    await page.waitForSelector('[data-testid=rollouts-table] tbody tr');
    const headers = await page.locator('[data-testid=rollouts-table] thead th').allInnerTexts();
    const names = headers.map((header) => header.replace(/[▾▴]/g, '').trim());
    expect(names.filter((name) => name === 'reward')).toHaveLength(1);
    expect(names.filter((name) => name === 'turns')).toHaveLength(1);
    expect(names.filter((name) => name === 'tool calls' || name === 'tool_calls')).toHaveLength(1);
    expect(names).toContain('steps');
    expect(await page.locator('[data-testid=rollouts-table] tbody tr').first().locator('td').nth(names.indexOf('steps')).innerText()).toBe('9');
    expect(await text('[data-testid=run-turns]')).toBe('2');
    expect(await text('[data-testid=reward-histogram] [data-testid=histogram-range]')).toBe('(all 1: 3)');
    expect(await text('[data-testid=bad-lines]')).toMatch(/^2 lines of results\.jsonl are not a rollout record/);
    expect(await text('[data-testid=bad-lines]')).toContain('line 4: not JSON');
  });

  it('rollout page: no duplicate cards, every gold answer, long tool results folded, the test output inline', async () => {
    await page.goto(`${base}/#/rollout/${encodeURIComponent('terminal/a')}/0`);
    await page.waitForSelector('[data-testid=rollout-title]');
    const cards = (await page.locator('.cards .card').allInnerTexts()).map((card) => card.replace(/\s+/g, ' ').trim());
    expect(cards.filter((card) => /^\S+ reward$/.test(card))).toEqual(['1.0000 reward']);
    expect(cards.filter((card) => /^\S+ turns$/.test(card))).toEqual(['2 turns']);
    expect(cards).toContain('9 steps');
    const gold = await page.locator('[data-testid=gold-answers] .gold').allInnerTexts();
    expect(gold).toEqual(['Amazonia', 'the Amazon Jungle', 'Amazonia or the Amazon Jungle']);
    const folded = page.locator('[data-testid=long-result]').first();
    expect(await folded.evaluate((element) => (element as unknown as { open: boolean }).open)).toBe(false);
    expect(await folded.locator('summary').innerText()).toContain('80 lines');
    const inline = (await page.locator('[data-testid=verifier-text]').allInnerTexts()).map((shown) => shown.trim());
    expect(inline).toEqual(['===== 3 passed in 0.12s =====']);
  });

  it('compare page: warns that the runs used different env args', async () => {
    await page.goto(`${base}/#/compare/${encodeURIComponent('terminal/a')}/${encodeURIComponent('terminal/b')}`);
    await page.waitForSelector('[data-testid=compare-summary]');
    expect(await text('[data-testid=compare-warnings]')).toMatch(/different env args.*easy.*hard/);
  });
});
