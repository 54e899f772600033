/**
 * `corral eval` with stderr not a terminal (nohup, Slurm, CI logs) prints a progress line every --progress-interval
 * seconds while the run goes, not only the final 100% line, even for the in-process wiki baseline, whose rollouts
 * chain promise to promise and keep timers from firing. Through the real CLI, stdout and stderr piped.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RUNNER_FIXTURES, runCorral } from './runner-cli.js';

const out = mkdtempSync(join(tmpdir(), 'corral-eval-progress-'));

afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('corral eval progress lines outside a terminal', () => {
  it('prints lines while the in-process baseline runs, then the final one', async () => {
    const result = await runCorral([
      'eval',
      'wiki-search',
      '--agent',
      'baseline',
      '-r',
      '30',
      '--progress-interval',
      '0.01',
      '--corpus',
      join(RUNNER_FIXTURES, 'tiny-pages.jsonl'),
      '--questions',
      join(RUNNER_FIXTURES, 'tiny-questions.jsonl'),
      '--backend',
      'process',
      '--out',
      join(out, 'run'),
    ]);
    expect(result.code).toBe(0);
    const done = [...result.stderr.matchAll(/\[eval\] progress (\d+)\/(\d+)/g)].map((match) => [Number(match[1]), Number(match[2])]);
    expect(done.at(-1)).toEqual([150, 150]);
    const during = done.filter(([finished, total]) => finished! < total!);
    expect(during.length).toBeGreaterThanOrEqual(2);
    expect(during.map(([finished]) => finished)).toEqual([...during.map(([finished]) => finished)].sort((a, b) => a! - b!));
    // -c auto is the default: each line shows the admission level, and metadata.json keeps it over time.
    expect(result.stderr).toMatch(/\[eval\] progress \d+\/150 .*\| in flight \d+\/\d+ \(auto, max 256\) \|/);
    const metadata = JSON.parse(readFileSync(join(out, 'run', 'metadata.json'), 'utf8')) as { max_concurrent: number; admission: Record<string, unknown> };
    expect(metadata.max_concurrent).toBe(256);
    expect(metadata.admission).toMatchObject({ mode: 'auto', max: 256, in_flight: 0, cuts: {} });
    const history = metadata.admission['history'] as [number, number][];
    // The ramp starts at 4 and, with rollouts that make no model calls, is clocked by finished rollouts.
    expect(history[0]).toEqual([0, 4]);
    expect(history.at(-1)![1]).toBeGreaterThan(4);
  }, 180_000);
});
