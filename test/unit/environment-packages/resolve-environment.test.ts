import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { environmentCache } from '../../../src/environment-packages/environment-cache.js';
import { installedPackageDirectory, writeInstalledRecord } from '../../../src/environment-packages/installed-environments.js';
import { resolveEnvironment, splitPackageSpec } from '../../../src/environment-packages/resolve-environment.js';
import { bindEnvironmentArgs, isEnvironmentFactory } from '../../../src/runner/contract/environment-args.js';
import { builtInEnvironments } from '../../../src/runner/environments/index.js';
import { corralFailure } from '../../helpers/corral-failure.js';

// A module any loader can import without corral's resolution hooks: a plain object, re-validated by the loader.
const moduleText = (name: string) =>
  `export default { name: '${name}', toolsets: ['python'], systemPrompt: 's', dataset: () => [{ id: 'a', prompt: 'p' }], rubric: [{ name: 'r', weight: 1, score: () => 1 }] };\n`;

let scratch = '';
let logged: string[] = [];
const options = () => ({
  builtIns: builtInEnvironments,
  cache: environmentCache({ cache: { dir: join(scratch, 'cache') } }),
  log: (line: string) => logged.push(line),
});

beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), 'corral-resolve-'));
  logged = [];
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

/** An installed package as `corral env install` leaves it: the folder in its prefix's node_modules and the record. */
function installByHand(name: string, version: string, environmentName: string): string {
  const cache = options().cache;
  const directory = installedPackageDirectory(cache, name);
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, 'package.json'), JSON.stringify({ name, version, corral: { environment: './env.mjs' } }));
  writeFileSync(join(directory, 'env.mjs'), moduleText(environmentName));
  writeInstalledRecord(cache, {
    name,
    version,
    installedFrom: `/tarballs/${name}.tgz`,
    resolved: null,
    integrity: null,
    installedAt: new Date().toISOString(),
  });
  return directory;
}

describe('resolveEnvironment', () => {
  it('a built-in name wins over a file or package of the same name', async () => {
    writeFileSync(join(scratch, 'wiki-search'), moduleText('impostor'));
    const resolved = await resolveEnvironment('wiki-search', options());
    expect(resolved.environment.name).toBe('wiki-search');
    expect(resolved.source).toMatchObject({ kind: 'built-in', name: 'wiki-search' });
    expect(resolved.modulePath).toBeNull();
  });

  it('an installed package by name (and name@its-version) before a path; another version is not it', async () => {
    const directory = installByHand('corral-env-fake', '1.4.0', 'fake-env');
    for (const spec of ['corral-env-fake', 'corral-env-fake@1.4.0']) {
      const resolved = await resolveEnvironment(spec, options());
      expect(resolved.environment.name).toBe('fake-env');
      expect(resolved.modulePath).toBe(join(directory, 'env.mjs'));
      expect(resolved.source).toMatchObject({
        kind: 'package',
        name: 'corral-env-fake',
        version: '1.4.0',
        path: directory,
        installed_from: '/tarballs/corral-env-fake.tgz',
      });
    }
    const error = await corralFailure(resolveEnvironment('corral-env-fake@2.0.0', options()));
    expect(error.code).toBe('ENV_ERR_NOT_FOUND');
    expect(error.message).toContain('corral-env-fake@1.4.0');
  });

  it('a module file, or a package folder through its declared entry, is a local module with its hash', async () => {
    const file = join(scratch, 'mine.mjs');
    writeFileSync(file, moduleText('mine'));
    expect((await resolveEnvironment(file, options())).source).toMatchObject({ kind: 'module', path: file, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const folder = join(scratch, 'pkg');
    mkdirSync(folder);
    writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: 'local-envs', version: '0.1.0', corral: { environment: './e.mjs' } }));
    writeFileSync(join(folder, 'e.mjs'), moduleText('local'));
    const resolved = await resolveEnvironment(folder, options());
    expect(resolved.environment.name).toBe('local');
    expect(resolved.source).toMatchObject({ kind: 'module', path: join(folder, 'e.mjs'), package: { name: 'local-envs', version: '0.1.0' } });
  });

  it('a module that default-exports an environment factory resolves to the factory, bound later with the run args', async () => {
    const file = join(scratch, 'factory.mjs');
    const built = moduleText('built').replace('export default ', 'const built = ');
    writeFileSync(
      file,
      `${built}export default { kind: 'corral.environment-factory', name: 'built', description: '', argsSchema: undefined, create: () => built };\n`,
    );
    const resolved = await resolveEnvironment(file, options());
    expect(isEnvironmentFactory(resolved.environment)).toBe(true);
    expect((await bindEnvironmentArgs(resolved.environment, {})).toolsets).toEqual(['python']);
  });

  it('an unknown name says what exists and how to install it, and installs nothing when not allowed to', async () => {
    installByHand('corral-env-fake', '1.4.0', 'fake-env');
    const prefixed = await corralFailure(resolveEnvironment('corral-env-missing', options()));
    expect(prefixed.code).toBe('ENV_ERR_NOT_FOUND');
    expect(prefixed.message).toContain('wiki-search');
    expect(prefixed.message).toContain('corral-env-fake@1.4.0');
    expect(prefixed.message).toContain('corral env install corral-env-missing');
    // Only corral-env-* names install on first use; any other name needs an explicit install.
    const other = await corralFailure(resolveEnvironment('left-pad', { ...options() }));
    expect(other.code).toBe('ENV_ERR_NOT_FOUND');
    expect(other.message).toContain('must be installed first with `corral env install left-pad`');
    expect(logged).toEqual([]);
  });

  it('splits package specs, scoped ones included', () => {
    expect(splitPackageSpec('corral-env-a')).toEqual({ name: 'corral-env-a', version: undefined });
    expect(splitPackageSpec('corral-env-a@1.2.3')).toEqual({ name: 'corral-env-a', version: '1.2.3' });
    expect(splitPackageSpec('@s/corral-env-a@1.2.3')).toEqual({ name: '@s/corral-env-a', version: '1.2.3' });
    expect(splitPackageSpec('@s/corral-env-a')).toEqual({ name: '@s/corral-env-a', version: undefined });
  });
});
