/** The composition root: parses argv with commander and dispatches. Only the CLI listens or exits. */
import { Command, CommanderError } from 'commander';
import { environmentVariables } from '../config/config-reference.js';
import { CorralError } from '../core/errors.js';
import { registerAgentsCommand } from './commands/agents.js';
import { registerBenchCommand } from './commands/bench.js';
import { registerCleanupCommand } from './commands/cleanup.js';
import { registerDoctorCommand } from './commands/doctor.js';
import { registerEnvCommand } from './commands/env.js';
import { registerEvalCommand } from './commands/eval.js';
import { registerExportCommand } from './commands/export.js';
import { registerImagesCommand } from './commands/images.js';
import { registerMcpCommand } from './commands/mcp-stdio.js';
import { registerServeCommand } from './commands/serve.js';
import { registerTasksCommand } from './commands/tasks.js';
import { registerViewCommand } from './commands/view.js';
import { registerQueueCommand } from './commands/queue.js';
import { registerWorkerCommand } from './commands/worker.js';
import { corralVersion } from '../core/project-root.js';

export function buildProgram(): Command {
  const program = new Command('corral')
    .description('Environment tools as MCP servers backed by pooled sandboxes, and a runner for scored trajectories.')
    .version(corralVersion())
    .showHelpAfterError()
    .addHelpText('after', environmentHelp());
  registerDoctorCommand(program);
  registerImagesCommand(program);
  registerCleanupCommand(program);
  registerBenchCommand(program);
  registerServeCommand(program);
  registerMcpCommand(program);
  registerEvalCommand(program);
  registerEnvCommand(program);
  registerTasksCommand(program);
  registerViewCommand(program);
  registerExportCommand(program);
  registerAgentsCommand(program);
  registerWorkerCommand(program);
  registerQueueCommand(program);
  return program;
}

/** The epilogue of `corral --help`: every environment variable, so none is discoverable only from the source. */
function environmentHelp(): string {
  const variables = environmentVariables();
  const width = Math.max(...variables.map((variable) => variable.name.length)) + 2;
  const lines = variables.map((variable) => `  ${variable.name.padEnd(width)}${variable.doc}`);
  return `\nEnvironment variables (flag > variable > CORRAL_CONFIG file > default; every key in docs/configuration.md):\n${lines.join('\n')}\n`;
}

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram().exitOverride();
  try {
    await program.parseAsync(argv);
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
