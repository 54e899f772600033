/**
 * The setup of `corral bench sandbox`'s group figure uses every core: its workers run side by side (as a compiler or
 * `make -j` does), so 8 per-rollout setups cannot hide on idle cores. Checked without timing: a stand-in python3 on
 * PATH is a barrier that succeeds only when all workers are running at once; workers run one after another would
 * each wait alone and fail. A failing worker fails the whole setup.
 */
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { setupWorkload } from '../../../benchmarks/sandbox-bench-fork.js';

const run = promisify(execFile);
const folder = mkdtempSync(join(tmpdir(), 'corral-setup-workload-'));
const arrivals = join(folder, 'arrivals');

// Arrives, then waits (up to 20 s) until `expected` workers have arrived; exit 1 when they never do.
function standInPython(expected: number, failing = false): string {
  const bin = mkdtempSync(join(folder, 'bin-'));
  rmSync(arrivals, { recursive: true, force: true });
  writeFileSync(
    join(bin, 'python3'),
    `#!/bin/sh\nmkdir -p ${arrivals}; touch ${arrivals}/$$\nfor i in $(seq 1 200); do [ $(ls ${arrivals} | wc -l) -ge ${expected} ] && exit ${failing ? 3 : 0}; sleep 0.1; done\nexit 1\n`,
  );
  chmodSync(join(bin, 'python3'), 0o755);
  return bin;
}

afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('the group figure setup workload', () => {
  it('runs its workers at the same time', async () => {
    const bin = standInPython(4);
    await run('sh', ['-c', setupWorkload(4, 10)], { env: { PATH: `${bin}:/usr/bin:/bin` } });
    expect(readdirSync(arrivals)).toHaveLength(4);
  });

  it('fails when a worker fails', async () => {
    const bin = standInPython(2, true);
    await expect(run('sh', ['-c', setupWorkload(2, 10)], { env: { PATH: `${bin}:/usr/bin:/bin` } })).rejects.toMatchObject({ code: 1 });
  });
});
