/**
 * The static command catalog that `corral --help` reads (so a start-up imports no command module) must say what the
 * real commands say: the same names in the same order, the same usage terms and descriptions, and the same help page.
 */
import { type Command, Help } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMAND_CATALOG } from '../../../src/cli/command-catalog.js';
import { buildProgram, programFor } from '../../../src/cli/main.js';

const realCommands = async () => (await buildProgram()).commands;

function helpOf(program: Command): string {
  let text = '';
  program.configureOutput({ writeOut: (chunk) => (text += chunk), writeErr: (chunk) => (text += chunk) });
  program.outputHelp();
  return text;
}

describe('the command catalog', () => {
  it('names every registered command, in order, with its real usage term and description', async () => {
    const help = new Help();
    const real = (await realCommands()).map((command) => ({ name: command.name(), term: help.subcommandTerm(command), description: command.description() }));
    const catalog = COMMAND_CATALOG.map(({ name, term, description }) => ({ name, term, description }));
    expect(catalog).toEqual(real);
  }, 60_000);

  it('gives `corral --help` the same page as the program with every command loaded', async () => {
    const { program, named } = await programFor(['node', 'corral', '--help']);
    expect(named).toBeUndefined();
    expect(helpOf(program)).toBe(helpOf(await buildProgram()));
  }, 60_000);

  it('registers only the command named on the command line, for real (its options and subcommands)', async () => {
    const { program, named } = await programFor(['node', 'corral', 'tasks', 'check', '--help']);
    expect(named?.name).toBe('tasks');
    expect(program.commands.map((command) => command.name())).toEqual(['tasks']);
    const real = (await realCommands()).find((command) => command.name() === 'tasks')!;
    expect(program.commands[0]!.commands.map((command) => command.name())).toEqual(real.commands.map((command) => command.name()));
    const viaHelp = await programFor(['node', 'corral', 'help', 'eval']);
    expect(viaHelp.named?.name).toBe('eval');
    expect(viaHelp.program.commands[0]!.options.length).toBeGreaterThan(5);
  }, 60_000);
});
