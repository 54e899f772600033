/**
 * The composition root: parses argv with commander and dispatches. Only the CLI listens or exits.
 * A start-up imports one command's module, the one named on the command line; `--version` and the top-level help
 * import none (they read src/cli/command-catalog.ts), so they never pay for fastify, dockerode or the MCP SDK.
 */
import { Command, CommanderError, Help } from 'commander';
import { CorralError } from '../core/errors.js';
import { corralVersion } from '../core/project-root.js';
import { type CatalogCommand, COMMAND_CATALOG } from './command-catalog.js';

export interface MainOptions {
  /**
   * Runs once the named command's modules have loaded, before it parses and runs; never for `--version` or the
   * top-level help. The installed bin registers its module hooks and tsx here (for users' .ts modules), so that
   * neither slows a start-up that needs no user module, nor sits in the path of corral's own imports.
   */
  beforeCommandRuns?: () => Promise<void>;
}

/** The program without commands: name, description, version and help settings every command inherits. */
function baseProgram(): Command {
  return new Command('corral')
    .description('Environment tools as MCP servers backed by pooled sandboxes, and a runner for scored trajectories.')
    .version(corralVersion())
    .showHelpAfterError();
}

/** Every command registered for real (tests and docs read its options); `corral` itself loads only what runs. */
export async function buildProgram(): Promise<Command> {
  const program = baseProgram().addHelpText('after', await environmentHelp());
  for (const entry of COMMAND_CATALOG) (await entry.load())(program);
  return program;
}

/**
 * The program for one command line: the named command registered for real (also for `corral help <name>`), or,
 * when no known command is named (`--version`, `--help`, a typo, nothing), every command as a catalog placeholder
 * whose help line is the real one, plus the environment-variable epilogue.
 */
export async function programFor(argv: readonly string[]): Promise<{ program: Command; named?: CatalogCommand }> {
  const named = namedCommand(argv.slice(2));
  const program = baseProgram();
  if (named) {
    (await named.load())(program);
    return { program, named };
  }
  // commander answers --version while it parses options, before any help could print: that start-up skips the schema.
  if (!asksVersion(argv.slice(2))) program.addHelpText('after', await environmentHelp());
  const terms = new Map<Command, string>();
  for (const entry of COMMAND_CATALOG) terms.set(program.command(entry.name).description(entry.description), entry.term);
  const standardHelp = new Help();
  program.configureHelp({ subcommandTerm: (command) => terms.get(command) ?? standardHelp.subcommandTerm(command) });
  return { program };
}

function namedCommand(args: readonly string[]): CatalogCommand | undefined {
  const name = args[0] === 'help' ? args[1] : args[0];
  return COMMAND_CATALOG.find((entry) => entry.name === name);
}

function asksVersion(args: readonly string[]): boolean {
  const options = args.includes('--') ? args.slice(0, args.indexOf('--')) : args;
  return options.includes('--version') || options.includes('-V');
}

/** The epilogue of `corral --help`: every environment variable, so none is discoverable only from the source. */
async function environmentHelp(): Promise<string> {
  // Imported here, not at the top: the config schema (zod) is needed only when the top-level help may print.
  const { environmentVariables } = await import('../config/config-reference.js');
  const variables = environmentVariables();
  const width = Math.max(...variables.map((variable) => variable.name.length)) + 2;
  const lines = variables.map((variable) => `  ${variable.name.padEnd(width)}${variable.doc}`);
  return `\nEnvironment variables (flag > variable > CORRAL_CONFIG file > default; every key in docs/configuration.md):\n${lines.join('\n')}\n`;
}

export async function main(argv: string[], options: MainOptions = {}): Promise<void> {
  try {
    const { program, named } = await programFor(argv);
    if (named) await options.beforeCommandRuns?.();
    await program.exitOverride().parseAsync(argv);
  } catch (error) {
    // Help and --version exit 0; a usage error (unknown flag, missing argument) is 2, as for any bad flag.
    if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? 0 : 2);
    if (CorralError.isInstance(error)) {
      process.stderr.write(`corral: ${error.code}: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
}
