import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { forgeryCandidates } from '../../../src/environment-check/forged-files.js';
import type { TerminalTask } from '../../../src/terminal/terminal-task.js';

const root = await mkdtemp(join(tmpdir(), 'corral-forgery-'));
afterAll(() => rm(root, { recursive: true, force: true }));

describe('forgeryCandidates', () => {
  it('lists the absolute paths the tests mention that an agent could write, not the verifier’s own or the system’s', async () => {
    const tests = join(root, 'tests');
    await mkdir(join(tests, 'helpers'), { recursive: true });
    await writeFile(
      join(tests, 'test.sh'),
      [
        'cd /app && python3 -m pytest /tests/test_outputs.py > /logs/verifier/out.txt',
        '[ -f /app/checks-passed ] && echo 1 > /logs/verifier/reward.txt',
        'curl https://example.com/not/a/path; cat $HOME/notes /usr/bin/env',
      ].join('\n'),
    );
    await writeFile(join(tests, 'helpers', 'check.py'), 'OUT = "/data/output/report.txt."\nf"{base}/skipped"\n');
    const task = { testScript: join(tests, 'test.sh'), testsDirectory: tests } as TerminalTask;
    expect(await forgeryCandidates(task)).toEqual(['/app', '/app/checks-passed', '/data/output/report.txt']);
  });
});
