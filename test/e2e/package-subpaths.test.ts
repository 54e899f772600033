/**
 * The public API's entry points as an installed package resolves them: `corral` (what an environment author writes
 * with), `corral/server` and `corral/sandbox` (what a host embedding corral uses) and `corral/testing`, from the
 * `npm pack` tarball (test/helpers/packed-corral.ts) installed into an `npm init -y` folder, which npm 11 makes
 * CommonJS. Each subpath is loaded from a CommonJS script (require, and import()), from an ES module, and type-checked
 * by TypeScript from the installed declarations; the root holds the authoring API and no server internals. In a
 * checkout, the CLI's module hooks answer the same subpaths for a user's module in any folder.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NPM_CACHE, packedCorralTarball } from '../helpers/packed-corral.js';

const execFileAsync = promisify(execFile);
const INSTALL_TIMEOUT_MS = 900_000;
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const CLI = resolve(import.meta.dirname, '../../bin/corral.mjs');

let app = '';

const childEnvironment = () => ({ ...process.env, npm_config_cache: NPM_CACHE, NODE_NO_WARNINGS: '1' });

async function run(command: string, args: string[]): Promise<string> {
  const { stdout } = await execFileAsync(command, args, { cwd: app, env: childEnvironment(), maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

/** Which of a module's exports are present, by name: what a subpath promises, and what it must not leak. */
const PROBE = {
  corral: ['defineEnvironment', 'defineTool', 'defineAgent', 'stateSays', 'lastCodeBlock', 'exactMatchRubric', 'ScriptedAgent', 'buildSamples', 'z'],
  'corral/server': ['buildServer', 'assembleToolServer', 'loadConfig', 'runEvaluation', 'OpenAIAgent', 'startModelProxy', 'toAtif', 'WikiIndex'],
  'corral/sandbox': ['SandboxPool', 'loadProvider', 'parseSandboxSpec', 'specHash', 'BACKEND_NAMES'],
  'corral/testing': ['startScriptedModelServer', 'smallWikiIndex'],
} as const;
const NOT_AT_ROOT = ['buildServer', 'SandboxPool', 'loadProvider', 'loadConfig', 'startModelProxy', 'runEvaluation', 'OpenAIAgent', 'assembleToolServer'];

/** A script body that loads each subpath with `load` and prints which probed names it exports, plus one real call. */
function probeScript(load: string): string {
  return [
    `const probe = ${JSON.stringify(PROBE)};`,
    `const notAtRoot = ${JSON.stringify(NOT_AT_ROOT)};`,
    'const found = {};',
    'for (const [subpath, names] of Object.entries(probe)) {',
    `  const module = ${load};`,
    '  found[subpath] = names.filter((name) => name in module);',
    "  if (subpath === 'corral') found.leaked = notAtRoot.filter((name) => name in module);",
    "  if (subpath === 'corral/sandbox') found.specHash = module.specHash(module.parseSandboxSpec({ backend: 'process' })).length;",
    '}',
    'console.log(JSON.stringify(found));',
  ].join('\n');
}

const expected = { ...PROBE, leaked: [], specHash: expect.any(Number) };

describe('corral, corral/server, corral/sandbox and corral/testing from the installed tarball', () => {
  beforeAll(async () => {
    app = await mkdtemp(join(tmpdir(), 'corral-subpaths-'));
    const tarball = await packedCorralTarball();
    await run('npm', ['init', '-y']);
    await run('npm', ['install', tarball, '--no-audit', '--no-fund', '--omit=optional']);
  }, INSTALL_TIMEOUT_MS);

  afterAll(async () => {
    if (app) await rm(app, { recursive: true, force: true });
  });

  it('the folder is the CommonJS package `npm init -y` writes', async () => {
    const manifest = JSON.parse(await readFile(join(app, 'package.json'), 'utf8')) as { type?: string };
    expect(manifest.type ?? 'commonjs').toBe('commonjs');
  });

  it('a CommonJS script loads every subpath with import()', async () => {
    await writeFile(join(app, 'import-probe.js'), `(async () => {\n${probeScript('await import(subpath)')}\n})();\n`);
    expect(JSON.parse(await run(process.execPath, ['import-probe.js']))).toEqual(expected);
  });

  it('a CommonJS script loads every subpath with require()', async () => {
    await writeFile(join(app, 'require-probe.js'), probeScript('require(subpath)'));
    expect(JSON.parse(await run(process.execPath, ['require-probe.js']))).toEqual(expected);
  });

  it('an ES module imports every subpath by name', async () => {
    await writeFile(join(app, 'import-probe.mjs'), probeScript('await import(subpath)'));
    expect(JSON.parse(await run(process.execPath, ['import-probe.mjs']))).toEqual(expected);
  });

  it('TypeScript resolves each subpath to its declarations, and an environment typed by its state needs no cast', async () => {
    await writeFile(
      join(app, 'check.mts'),
      [
        "import { defineEnvironment, exactMatchRubric, stateSays, type ToolDefinition } from 'corral';",
        "import { buildServer, type ToolResult } from 'corral/server';",
        "import { SandboxPool, type SandboxSession } from 'corral/sandbox';",
        "import { startScriptedModelServer } from 'corral/testing';",
        'export const environment = defineEnvironment({',
        "  name: 'typed', dataset: () => [], systemPrompt: 'play',",
        '  state: () => ({ solved: false }),',
        '  stopWhen: stateSays((state) => state.solved),',
        "  rubric: [exactMatchRubric(), { name: 'solved', weight: 1, score: ({ state }) => (state.solved ? 1 : 0) }],",
        '});',
        'export const entryPoints = [buildServer, SandboxPool, startScriptedModelServer] as const;',
        'export type Embedded = [ToolDefinition, ToolResult, SandboxSession];',
      ].join('\n'),
    );
    await writeFile(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true, skipLibCheck: true, types: [] },
        files: ['check.mts'],
      }),
    );
    const checked = await execFileAsync(process.execPath, [TSC, '-p', 'tsconfig.json', '--traceResolution'], { cwd: app, maxBuffer: 256 * 1024 * 1024 }).catch(
      (error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }),
    );
    const errors = checked.stdout.split('\n').filter((line) => line.includes('error TS'));
    expect(errors).toEqual([]);
    for (const [subpath, declaration] of [
      ['corral', 'dist/src/index.d.ts'],
      ['corral/server', 'dist/src/server-api.d.ts'],
      ['corral/sandbox', 'dist/src/sandbox-api.d.ts'],
      ['corral/testing', 'dist/src/testing/index.d.ts'],
    ]) {
      expect(checked.stdout).toMatch(new RegExp(`Module name '${subpath}' was successfully resolved to '[^']*node_modules/corral/${declaration}'`));
    }
  });
});

describe("the checkout's CLI answers corral/server and corral/sandbox for a module in any folder", () => {
  it('corral env show loads a module importing all three entry points (bin/corral-module-hooks.mjs, from package.json exports)', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'corral-subpath-hooks-'));
    try {
      await writeFile(
        join(folder, 'env.ts'),
        [
          "import { defineEnvironment } from 'corral';",
          "import { parseSandboxSpec, specHash } from 'corral/sandbox';",
          "import { buildToolCatalog } from 'corral/server';",
          'export default defineEnvironment({',
          "  name: 'subpaths', dataset: () => [], systemPrompt: 'x', rubric: [{ name: 'zero', weight: 1, score: () => 0 }],",
          "  description: `${specHash(parseSandboxSpec({ backend: 'process' })).length} ${typeof buildToolCatalog}`,",
          '});',
        ].join('\n'),
      );
      const { stdout } = await execFileAsync(process.execPath, [CLI, 'env', 'show', join(folder, 'env.ts'), '--json'], { cwd: folder });
      expect(JSON.parse(stdout)).toMatchObject({ name: 'subpaths', description: '16 function' });
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
