/**
 * Configuration is discoverable without reading the source: docs/configuration.md is generated from the schema
 * (and fails on drift), every key has a meaning, every environment variable corral reads is in the doc and in
 * `corral --help`, and every flag a config message tells the user to set is one some command registers.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { renderConfigurationDoc } from '../../../scripts/write-config-docs.js';
import { buildProgram } from '../../../src/cli/main.js';
import { configKeyReference, environmentVariables } from '../../../src/config/config-reference.js';
import { CONFIG_SOURCES, loadConfig } from '../../../src/config/load-config.js';
import { CorralError } from '../../../src/core/errors.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const doc = () => readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8');

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Names of environment variables the source reads: process.env.X, process.env['X'] and env.CORRAL_X. */
function environmentVariablesRead(): string[] {
  const names = new Set<string>();
  const pattern = /process\.env(?:\.([A-Z_][A-Z0-9_]*)|\[['"]([A-Z_][A-Z0-9_]*)['"]\])|\benv\.(CORRAL_[A-Z0-9_]+)/g;
  for (const file of sourceFiles(join(ROOT, 'src'))) {
    for (const match of readFileSync(file, 'utf8').matchAll(pattern)) names.add((match[1] ?? match[2] ?? match[3])!);
  }
  for (const source of CONFIG_SOURCES) names.add(source.env);
  return [...names].sort();
}

function registeredFlags(command: Command): string[] {
  return [...command.options.flatMap((option) => (option.long ? [option.long] : [])), ...command.commands.flatMap(registeredFlags)];
}

async function helpText(): Promise<string> {
  let text = '';
  const program = (await buildProgram()).configureOutput({ writeOut: (chunk) => (text += chunk), writeErr: (chunk) => (text += chunk) });
  program.outputHelp();
  return text;
}

const flagsNamedIn = (message: string) => [...message.matchAll(/--[a-z][a-z0-9-]*/g)].map((match) => match[0]);

describe('configuration docs', () => {
  it('docs/configuration.md is what scripts/write-config-docs.ts generates (run npm run docs:config)', () => {
    expect(doc()).toBe(renderConfigurationDoc());
  });

  it('every config key has a meaning, a type and its default', () => {
    const keys = configKeyReference();
    expect(keys.map((key) => key.path)).toEqual(expect.arrayContaining(['sandbox.image', 'sandbox.minIdle', 'sandbox.max', 'sandbox.reuse', 'data.dataDir']));
    expect(keys.filter((key) => !key.doc).map((key) => key.path)).toEqual([]);
    expect(keys.find((key) => key.path === 'sandbox.minIdle')).toMatchObject({ defaultValue: '2', flag: '--min-idle', env: 'CORRAL_MIN_IDLE' });
  });

  it('every environment variable corral reads is in docs/configuration.md and in the corral --help epilogue', async () => {
    const read = environmentVariablesRead();
    expect(read).toEqual(
      expect.arrayContaining(['CORRAL_CONFIG', 'CORRAL_DATA_DIR', 'CORRAL_IMAGE', 'CORRAL_MAX_SANDBOXES', 'CORRAL_MIN_IDLE', 'CORRAL_REUSE']),
    );
    const text = doc();
    expect(read.filter((name) => !text.includes(`\`${name}\``))).toEqual([]);
    const help = await helpText();
    expect(read.filter((name) => !help.includes(name))).toEqual([]);
    expect(
      environmentVariables()
        .map((variable) => variable.name)
        .sort(),
    ).toEqual(expect.arrayContaining(read));
  });

  it('every flag a config error names is registered by some command', async () => {
    // commander adds --help (and --version) itself, outside command.options.
    const registered = new Set([...registeredFlags(await buildProgram()), '--help']);
    const messageOf = (env: Record<string, string>) => {
      try {
        loadConfig({ env });
      } catch (error) {
        if (CorralError.hasCode(error, 'CFG_ERR_INVALID')) return error.message;
        throw error;
      }
      throw new Error(`no config error for ${JSON.stringify(env)}`);
    };
    // One bad value per source, so each message names that source's flag.
    const invalid = (source: (typeof CONFIG_SOURCES)[number]) =>
      source.parse === Number ? '-1.5' : source.path[1] === 'backend' || source.path[1] === 'reuse' ? 'nonsense' : '';
    const named = new Set<string>();
    for (const source of CONFIG_SOURCES) {
      const value = invalid(source);
      if (value === '') continue; // free-form strings have no invalid value an environment variable can carry
      const message = messageOf({ [source.env]: value });
      expect(message).toContain(source.flag);
      for (const flag of flagsNamedIn(message)) named.add(flag);
    }
    for (const source of CONFIG_SOURCES) named.add(source.flag);
    for (const file of sourceFiles(join(ROOT, 'src/config'))) for (const flag of flagsNamedIn(readFileSync(file, 'utf8'))) named.add(flag);
    expect(named).toContain('--max-sandboxes');
    expect([...named].filter((flag) => !registered.has(flag)).sort()).toEqual([]);
  });
});
