/**
 * Issue 20: what installing or naming an environment package may change. Every package here is a hand-made folder
 * installed with `corral env install` (npm with a scratch cache, nothing from a registry) by the checkout CLI.
 * - one package's dependency named `corral` (the alias attack) must not replace corral for another package;
 * - a package whose environment is named like a built-in is refused by `corral serve`;
 * - a corral-env-* name that is not installed is never fetched without an explicit opt-in;
 * - a module whose import never settles is a typed error after a timeout, not a hang.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NPM_CACHE } from '../helpers/packed-corral.js';
import { runCorral, spawnCorral } from './runner-cli.js';

let work = '';
let cacheDir = '';

const environmentOf = (extra: Record<string, string> = {}) => ({ CORRAL_CACHE_DIR: cacheDir, npm_config_cache: NPM_CACHE, ...extra });
const corral = (args: string[], extra: Record<string, string> = {}) => runCorral(args, environmentOf(extra));

/** A package folder with a package.json and files. */
function packageFolder(name: string, manifest: Record<string, unknown>, files: Record<string, string>): string {
  const folder = join(work, name);
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ name, version: '1.0.0', type: 'module', ...manifest }));
  for (const [path, text] of Object.entries(files)) writeFileSync(join(folder, path), text);
  return folder;
}

const environmentModule = (name: string, description: string) => `import { defineEnvironment } from 'corral';
export default defineEnvironment({
  name: ${JSON.stringify(name)},
  description: ${JSON.stringify(description)},
  toolsets: ['files'],
  dataset: () => [{ id: 'one', prompt: 'hi', answer: 'x' }],
  rubric: [{ name: 'zero', weight: 1, score: () => 0 }],
  systemPrompt: 'nothing to do',
});
`;

const environmentPackage = (name: string, environmentName: string, description: string, extraManifest: Record<string, unknown> = {}) =>
  packageFolder(
    name,
    { corral: { environment: './index.js' }, peerDependencies: { corral: '*' }, peerDependenciesMeta: { corral: { optional: true } }, ...extraManifest },
    { 'index.js': environmentModule(environmentName, description) },
  );

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'corral-env-trust-'));
  cacheDir = join(work, 'cache');
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('one installed package cannot change what another runs', () => {
  it('a dependency named corral in one package does not replace corral for an installed package that imports it', async () => {
    const good = environmentPackage('corral-env-good', 'good', 'the honest environment');
    // The attacker's "corral": its defineEnvironment swaps the description, so the test sees whose code ran.
    const fakeCorral = packageFolder(
      'evil-corral',
      { main: './index.js', exports: { '.': './index.js' } },
      { 'index.js': "export const defineEnvironment = (input) => ({ ...input, description: 'PWNED by evil-corral' });\nexport const z = {};\n" },
    );
    const evil = environmentPackage('corral-env-evil', 'evil', 'the other environment', { dependencies: { corral: `file:${fakeCorral}` } });
    const installGood = await corral(['env', 'install', good]);
    expect(installGood.code, installGood.stderr).toBe(0);
    const installEvil = await corral(['env', 'install', evil]);
    expect(installEvil.code, installEvil.stderr).toBe(0);
    const show = await corral(['env', 'show', 'corral-env-good', '--json']);
    expect(show.code, show.stderr).toBe(0);
    expect(JSON.parse(show.stdout)).toMatchObject({ name: 'good', description: 'the honest environment' });
    // Both are listed, each in a prefix of its own; removing one leaves the other runnable.
    const list = await corral(['env', 'list', '--json']);
    const packages = (JSON.parse(list.stdout) as { environments: { name: string; kind: string }[] }).environments.filter((row) => row.kind === 'package');
    expect(packages.map((row) => row.name)).toEqual(['corral-env-evil', 'corral-env-good']);
    const remove = await corral(['env', 'remove', 'corral-env-evil']);
    expect(remove.code, remove.stderr).toBe(0);
    const again = await corral(['env', 'show', 'corral-env-good', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ description: 'the honest environment' });
  });
});

describe('built-in names are not replaceable', () => {
  it('corral serve --env <package whose environment is named python-code> refuses with ENV_ERR_NAME_TAKEN and exits 2', async () => {
    const impostor = environmentPackage('corral-env-impostor', 'python-code', 'not the built-in');
    const install = await corral(['env', 'install', impostor]);
    expect(install.code, install.stderr).toBe(0);
    const serve = await corral(['serve', '--host', '127.0.0.1', '--port', '0', '--backend', 'process', '--env', 'corral-env-impostor']);
    expect(serve.code).toBe(2);
    expect(serve.stderr).toMatch(/ENV_ERR_NAME_TAKEN: .*python-code.*built-in/);
  });
});

describe('a corral-env-* name that is not installed', () => {
  it('corral eval refuses to fetch it and says the exact command to run; env show does too', async () => {
    // A registry that answers nothing: before the fix, npm was asked for the name.
    const evaluation = await corral(['eval', 'corral-env-vualt', '--agent', 'solver', '--backend', 'process', '--no-progress'], {
      npm_config_registry: 'http://127.0.0.1:9/',
    });
    expect(evaluation.code).toBe(2);
    expect(evaluation.stderr).toMatch(/ENV_ERR_NOT_FOUND: .*corral-env-vualt.*not installed.*corral env install corral-env-vualt/);
    expect(evaluation.stderr).not.toMatch(/installing/);
  });
});

describe('a module whose import never settles', () => {
  it('corral env show fails with ENV_ERR_LOAD_TIMEOUT after CORRAL_ENV_LOAD_TIMEOUT_MS instead of hanging', async () => {
    const folder = join(work, 'hanging');
    mkdirSync(folder, { recursive: true });
    // A timer keeps the event loop alive, as a socket that never answers would: Node cannot tell the wait is for ever.
    writeFileSync(join(folder, 'env.mjs'), `await new Promise(() => setInterval(() => {}, 60_000));\nexport default {};\n`);
    const child = spawnCorral(['env', 'show', join(folder, 'env.mjs')], environmentOf({ CORRAL_ENV_LOAD_TIMEOUT_MS: '1500' }));
    const code = await child.exited;
    expect(code).toBe(2);
    expect(child.output.stderr).toMatch(/ENV_ERR_LOAD_TIMEOUT: .*env\.mjs.*did not finish loading within 1\.5 s/);
  });
});
