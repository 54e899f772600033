/**
 * `corral bench sandbox --only <parts>` (the flag and mechanism of `corral bench runner --only`): a subset measures
 * only its figures, so the fork figures run without the docker part's 200 containers; an unknown part is a typed
 * error naming the choices. Driven through the bench command itself, in process, with the isolate part (no daemon).
 */
import { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { registerBenchSubcommands } from '../../../benchmarks/bench-command.js';
import type { Figure } from '../../../benchmarks/figure.js';

async function bench(args: string[]): Promise<string> {
  const written: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  const program = new Command('corral bench').exitOverride();
  registerBenchSubcommands(program);
  await program.parseAsync(args, { from: 'user' });
  return written.join('');
}

afterEach(() => vi.restoreAllMocks());

describe('corral bench sandbox --only', () => {
  it('measures only the parts asked for', async () => {
    const figures = JSON.parse(await bench(['sandbox', '--only', 'isolate', '--json'])) as Figure[];
    expect(figures.map((figure) => figure.name)).toEqual(['sandbox.isolate.acquire.p50']);
    expect(figures[0]!.value).toBeGreaterThan(0);
  });

  it('refuses an unknown part, naming the parts there are', async () => {
    await expect(bench(['sandbox', '--only', 'fork,forks'])).rejects.toMatchObject({
      code: 'CFG_ERR_INVALID',
      message: '--only: unknown part(s) forks; choose from isolate, process, docker, fork',
    });
  });
});
