/**
 * `corral eval` on one environment mixing two images on Docker, as a user runs it, with every container released
 * afterwards: serial, because any corral start elsewhere would reap the exited run's containers and hide a leak.
 * (Env args, resume of an async-iterable dataset and the process backend's refusals are
 * environment-authoring-arguments.test.ts, a parallel file.)
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { backendAvailable } from '../helpers/backend-gate.js';
import { ROOT, containersOwnedBy, readResults, spawnCorral } from './runner-cli.js';

const dockerBackend = await backendAvailable('docker');
const example = (folder: string) => join(ROOT, 'examples', folder, 'index.ts');
const scratch = () => mkdtempSync(join(tmpdir(), 'corral-authoring-'));

describe.skipIf(!dockerBackend)('corral eval: per-example images (docker)', () => {
  it('runs each example in the image it names, with its own env vars, and releases every container', async () => {
    const out = join(scratch(), 'mixed-docker');
    const child = spawnCorral(['eval', example('mixed-images'), '--agent', 'reference', '--backend', 'docker', '--out', out, '--no-progress', '-c', '2']);
    const code = await child.exited;
    expect(code, child.output.stderr).toBe(0);
    const answers = Object.fromEntries(readResults(out).map((record) => [record.example_id, record.final_answer]));
    expect(answers).toEqual({ determinant: '5', 'sympy-factor': '(x - 3)*(x - 2)', 'which-image': 'missing', 'task-env': 'scientific' });
    expect(await containersOwnedBy(child.pid!)).toEqual([]);
  }, 300_000);
});
