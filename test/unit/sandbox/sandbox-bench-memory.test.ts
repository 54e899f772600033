/**
 * `corral bench sandbox`'s idle-memory figure when `docker stats` fails under load: the failure is reported in the
 * figure (value NaN, error naming what failed) instead of thrown, so the benchmark releases its 200 sandboxes and
 * goes on. A stats source that fails as the daemon did (EOF) is injected.
 */
import { describe, expect, it } from 'vitest';
import { idleMemoryFigure, meanMemoryMiB } from '../../../benchmarks/sandbox-bench-memory.js';

const eof = async (): Promise<string> => {
  throw Object.assign(new Error('Command failed: docker stats --no-stream'), {
    stderr: 'error during connect: Get "http://%2Fvar%2Frun%2Fdocker.sock/v1.47/containers/json": EOF\n',
  });
};

describe('the idle-memory figure', () => {
  it('reports a docker stats failure (EOF) in the figure instead of throwing', async () => {
    const figure = await idleMemoryFigure(async () => ['a', 'b'], eof);
    expect(figure.name).toBe('sandbox.docker.idle_memory');
    expect(figure.value).toBeNaN();
    expect(figure.error).toMatch(/^docker stats failed: error during connect: .*EOF$/);
  });

  it('reports a failing container list the same way', async () => {
    const figure = await idleMemoryFigure(async () => {
      throw new Error('docker ps: unexpected EOF');
    });
    expect(figure.value).toBeNaN();
    expect(figure.error).toBe('docker stats failed: docker ps: unexpected EOF');
  });

  it('averages what docker stats prints, in MiB, over every unit it uses', async () => {
    const figure = await idleMemoryFigure(
      async () => ['a', 'b', 'c'],
      async () => '12MiB / 512MiB\n1024KiB / 512MiB\n0.5GiB / 1GiB\n',
    );
    expect(figure).toEqual({ name: 'sandbox.docker.idle_memory', value: Math.round(((12 + 1 + 512) / 3) * 10) / 10, unit: 'MiB/sandbox' });
    expect(meanMemoryMiB('-- / --\n')).toBeNaN();
  });
});
