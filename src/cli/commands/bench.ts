import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command } from 'commander';
import { CorralError } from '../../core/errors.js';
import { projectRoot } from '../../core/project-root.js';

/** What benchmarks/bench-command.ts exports; typed here so that compiling src/ never pulls benchmarks/ in. */
interface BenchmarksModule {
  registerBenchSubcommands(bench: Command): void;
}

const NEEDS_CHECKOUT = 'benchmarks run from a corral checkout (git clone, npm ci, then node bin/corral.mjs bench ...); an installed package does not ship them';

/**
 * `corral bench <name> [--json]`. The benchmarks live in benchmarks/ at the top of a checkout, outside src/:
 * they use devDependencies (undici, @modelcontextprotocol/node) and are not compiled into the package. This
 * command only finds them, by a computed path that neither tsc nor the layering test follows, and hands over.
 */
export function registerBenchCommand(program: Command): void {
  program
    .command('bench')
    // The names benchmarks/bench-command.ts registers (test/e2e/cli-help-and-messages.test.ts keeps the two in step).
    .description('run a benchmark (from a checkout): sandbox | mcp | search | runner | terminal | agents | environments | view | queue | cli [--json]')
    .argument('[arguments...]', 'the benchmark and its options; `corral bench --help` lists them in a checkout')
    .allowUnknownOption()
    .helpOption(false)
    .action(async (benchArguments: string[]) => {
      const { registerBenchSubcommands } = await loadBenchmarks();
      const bench = new Command('corral bench').exitOverride().showHelpAfterError();
      registerBenchSubcommands(bench);
      await bench.parseAsync(benchArguments, { from: 'user' });
    });
}

async function loadBenchmarks(): Promise<BenchmarksModule> {
  const entry = join(projectRoot(), 'benchmarks', 'bench-command.ts');
  if (!existsSync(entry)) throw new CorralError('CLI_ERR_NEEDS_CHECKOUT', NEEDS_CHECKOUT, { details: { looked: entry } });
  try {
    return (await import(pathToFileURL(entry).href)) as BenchmarksModule;
  } catch (error) {
    // A checkout run from dist/ without tsx cannot load .ts; anything else is a real failure worth its stack.
    if ((error as { code?: unknown }).code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw error;
    throw new CorralError('CLI_ERR_NEEDS_CHECKOUT', `${NEEDS_CHECKOUT} (found ${entry}, but this process has no TypeScript loader: run bin/corral.mjs)`, {
      cause: error,
    });
  }
}
