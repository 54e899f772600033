import type { Command } from 'commander';
import { type Figure, formatFigures } from '../../bench/figure.js';
import { describeMachine } from '../../bench/machine.js';
import { runSandboxBench } from '../../bench/sandbox-bench.js';

/** `corral bench <name> [--json]`: benchmarks kept as code; each measures its peer in the same run. */
export function registerBenchCommand(program: Command): void {
  const bench = program.command('bench').description('run a benchmark; --json prints an array of {name, value, unit, peer?, peerValue?, ratio?}');
  bench
    .command('sandbox')
    .description('warm acquire, agent round trips, reset, creation rate, concurrency and leaks, against docker run/exec')
    .option('--json', 'print only the JSON array of figures on stdout')
    .option('--image <image>', 'sandbox image', 'corral/python:latest')
    .option('--concurrent <n>', 'Docker sandboxes held at once', '200')
    .action(async (options: { json?: boolean; image: string; concurrent: string }) => {
      const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
      const figures = await runSandboxBench({ image: options.image, concurrent: Number(options.concurrent), log });
      print(figures, options.json === true, 'sandbox: medians of sequential samples after one warm-up call; peers run in the same process and session.');
    });
}

export function print(figures: Figure[], json: boolean, method: string): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(figures)}\n`);
    return;
  }
  process.stdout.write(`machine: ${describeMachine()}\nmethod: ${method}\n\n${formatFigures(figures)}\n`);
}
