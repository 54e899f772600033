/**
 * The GRPO example (examples/train-grpo) end to end: `corral serve --env examples/train-grpo/env.ts` on the process
 * backend, and the trainer (Python, Debian's torch) serving its own policy and training it through POST /v1/rollouts
 * with fixed seeds. Asserts on the trainer's JSON output that the reward rose clearly and that every sampled token's
 * logprob, recomputed with the weights that sampled it, equals the one corral recorded (the token path is exact end
 * to end, across tool results); then that the series the requests named is the curve the trainer saw, and that the
 * viewer's series page draws it (its screenshot is docs/images/train-grpo-curve.png).
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gate } from '../helpers/test-gates.js';
import { type ServeProcess, startServe } from './serve-cli-process.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const PYTHON = '/usr/bin/python3';
const CHROMIUM = '/usr/bin/chromium';
const STEPS = 30;
const haveTorch = gate(
  "Debian's python3-torch",
  spawnSync(PYTHON, ['-c', 'import torch, numpy'], { stdio: 'ignore' }).status === 0
    ? null
    : `${PYTHON} cannot import torch (scripts/setup.sh installs python3-torch)`,
);
const haveChromium = gate('headless Chromium', existsSync(CHROMIUM) ? null : `${CHROMIUM} is missing (scripts/setup.sh installs Debian's chromium)`);

interface TrainerStep {
  step: number;
  rollouts: number;
  errored: number;
  mean_reward: number | null;
  samples: number;
}

interface TrainerResult {
  steps: number;
  first_mean_reward: number;
  last_mean_reward: number;
  window: number;
  max_logprob_delta: number;
  max_logprob_change_after_update: number;
  sampled_tokens_checked: number;
  errored: number;
  model_requests: number;
  series: string;
  history: TrainerStep[];
}

const runs = mkdtempSync(join(tmpdir(), 'corral-train-grpo-'));
let serve: ServeProcess | undefined;
let address = '';

beforeAll(async () => {
  if (!haveTorch) return;
  serve = startServe(['--env', join(ROOT, 'examples/train-grpo/env.ts'), '--backend', 'process', '--port', '0', '--view-dir', runs]);
  for (let attempt = 0; attempt < 600 && !serve.address(); attempt++) {
    if (serve.child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  address = serve.address() ?? '';
  if (!address) throw new Error(`corral serve did not start:\n${serve.stderr()}`);
}, 120_000);

afterAll(async () => {
  serve?.child.kill('SIGTERM');
  await serve?.exited;
  rmSync(runs, { recursive: true, force: true });
});

function runTrainer(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, [join(ROOT, 'examples/train-grpo/train.py'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

describe.runIf(haveTorch)('examples/train-grpo: a policy trained from scratch through corral', () => {
  let result: TrainerResult;

  it('raises the mean reward clearly, and recomputes every sampled logprob exactly', async () => {
    const run = await runTrainer(['--corral', address, '--steps', String(STEPS), '--seed', '0', '--series', 'train-grpo']);
    expect(run.status, `trainer failed:\n${run.stderr}`).toBe(0);
    result = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as TrainerResult;
    console.log(
      `[train-grpo] mean reward: first ${result.window} steps ${result.first_mean_reward.toFixed(3)}, last ${result.window} steps ` +
        `${result.last_mean_reward.toFixed(3)}; max |recomputed - recorded logprob| ${result.max_logprob_delta.toExponential(2)} over ` +
        `${result.sampled_tokens_checked} sampled tokens (one update moves them up to ${result.max_logprob_change_after_update.toFixed(3)}); ` +
        `${result.model_requests} model requests`,
    );
    expect(result.steps).toBe(STEPS);
    expect(result.errored).toBe(0);
    expect(result.history.every((step) => step.rollouts === 32)).toBe(true);
    expect(result.last_mean_reward - result.first_mean_reward).toBeGreaterThan(0.3);
    // Every model turn's sampled tokens: at least the 32 rollouts' first turns of every step.
    expect(result.sampled_tokens_checked).toBeGreaterThan(STEPS * 32);
    expect(result.max_logprob_delta).toBeLessThanOrEqual(1e-4);
    // The check can fail: the same tokens under the weights one update later differ by far more.
    expect(result.max_logprob_change_after_update).toBeGreaterThan(1e-3);
  }, 900_000);

  it('leaves the series the trainer named: one point per step, the rewards the trainer saw', async () => {
    const steps = readFileSync(join(runs, 'series', 'train-grpo', 'steps.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(steps).toHaveLength(STEPS);
    const response = await fetch(`${address}/view/api/series?name=train-grpo`);
    const curve = (await response.json()) as {
      env: string;
      steps: { step: number; rollouts: number; reward_mean: number; completion_tokens_per_rollout: number }[];
    };
    expect(curve.env).toBe('keybox');
    expect(curve.steps.map((step) => step.step)).toEqual(result.history.map((step) => step.step));
    curve.steps.forEach((step, index) => expect(step.reward_mean).toBeCloseTo(result.history[index]!.mean_reward!, 12));
    expect(curve.steps.every((step) => step.completion_tokens_per_rollout > 0)).toBe(true);
  });

  it.runIf(haveChromium)(
    'draws the curve on the viewer series page',
    async () => {
      const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-background-networking'] });
      try {
        const page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
        await page.goto(`${address}/view/#/series/train-grpo`);
        await page.waitForSelector('[data-testid=series-reward] canvas');
        for (const chart of ['series-reward', 'series-errored', 'series-tokens', 'series-time'])
          expect(await page.locator(`[data-testid=${chart}] canvas`).count()).toBe(1);
        expect(await page.locator('[data-testid=series-steps]').innerText()).toBe(String(STEPS));
        expect(await page.locator('[data-testid=series-last-reward]').innerText()).toBe(result.history.at(-1)!.mean_reward!.toFixed(4));
        const screenshots = join(ROOT, '.cache', 'viewer-screenshots');
        mkdirSync(screenshots, { recursive: true });
        await page.screenshot({ path: join(screenshots, 'train-grpo-curve.png') });
        copyFileSync(join(screenshots, 'train-grpo-curve.png'), join(ROOT, 'docs', 'images', 'train-grpo-curve.png'));
      } finally {
        await browser.close();
      }
    },
    120_000,
  );
});
