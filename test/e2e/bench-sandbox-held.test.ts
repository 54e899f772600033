/**
 * The held-sandboxes part of `corral bench sandbox` (real Docker) when `docker stats` fails under load: the
 * benchmark returns its figures with the memory figure marked failed, and every sandbox it held is gone.
 */
import { describe, expect, it } from 'vitest';
import { concurrencyFigures } from '../../benchmarks/sandbox-bench.js';
import { DEFAULT_SANDBOX_IMAGE } from '../../src/core/sandbox-defaults.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { containersOwnedBy } from './runner-cli.js';

const ready = await backendAvailable('docker');

describe.skipIf(!ready)('corral bench sandbox: sandboxes held at once', () => {
  it('reports a failing docker stats in its figure and releases every sandbox instead of dying', async () => {
    const logged: string[] = [];
    const figures = await concurrencyFigures({
      image: DEFAULT_SANDBOX_IMAGE,
      concurrent: 3,
      log: (line) => logged.push(line),
      statsSource: async () => {
        throw Object.assign(new Error('Command failed: docker stats'), { stderr: 'unexpected EOF' });
      },
    });
    expect(figures.find((figure) => figure.name === 'sandbox.docker.concurrent')?.value).toBe(3);
    expect(figures.find((figure) => figure.name === 'sandbox.docker.concurrent.errors')?.value).toBe(0);
    const memory = figures.find((figure) => figure.name === 'sandbox.docker.idle_memory')!;
    expect(memory.value).toBeNaN();
    expect(memory.error).toBe('docker stats failed: unexpected EOF');
    expect(logged.some((line) => line.includes('docker stats failed'))).toBe(true);
    expect(await containersOwnedBy(process.pid)).toEqual([]);
  });
});
