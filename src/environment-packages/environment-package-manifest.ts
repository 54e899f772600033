/**
 * Whether a folder holds an environment package, and which module is its environment: the package.json's
 * `"corral": {"environment": "./dist/index.js"}` (a .ts path works too), else, for a package named corral-env-*,
 * its main entry (exports "." / main / index.js).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { CorralError } from '../core/errors.js';

export interface EnvironmentPackageManifest {
  name: string;
  version: string;
  /** The package folder. */
  directory: string;
  /** Absolute path of the module whose default export is the environment. */
  entryPath: string;
}

const PREFIXED_NAME = /^(@[^/]+\/)?corral-env-[a-z0-9][a-z0-9._-]*$/;

/** True for `corral-env-x` and `@scope/corral-env-x`: packages that need no `corral` field in package.json. */
export const isEnvironmentPackageName = (name: string) => PREFIXED_NAME.test(name);

export function readPackageJson(directory: string): Record<string, unknown> | null {
  const path = join(directory, 'package.json');
  if (!existsSync(path)) return null;
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The manifest of the package in `directory`; throws ENV_ERR_NOT_ENVIRONMENT_PACKAGE when it is not one. */
export function readEnvironmentPackage(directory: string): EnvironmentPackageManifest {
  const manifest = readPackageJson(directory);
  const name = typeof manifest?.['name'] === 'string' ? manifest['name'] : undefined;
  if (!manifest || !name) throw notAnEnvironment(directory, 'it has no package.json with a name');
  const version = typeof manifest['version'] === 'string' ? manifest['version'] : '0.0.0';
  const declared = corralField(manifest);
  const entry = declared ?? (isEnvironmentPackageName(name) ? mainEntry(manifest) : undefined);
  if (!entry)
    throw notAnEnvironment(directory, `its package.json has no "corral": {"environment": "./path/to/module"} and "${name}" is not a corral-env-* name`);
  const entryPath = resolve(directory, entry);
  if (relative(directory, entryPath).startsWith('..')) throw notAnEnvironment(directory, `its environment entry ${entry} points outside the package`);
  if (!existsSync(entryPath)) throw notAnEnvironment(directory, `its environment entry ${entry} does not exist (was the package built before packing?)`);
  return { name, version, directory, entryPath };
}

function corralField(manifest: Record<string, unknown>): string | undefined {
  const corral = manifest['corral'];
  if (typeof corral !== 'object' || corral === null) return undefined;
  const environment = (corral as Record<string, unknown>)['environment'];
  return typeof environment === 'string' && environment.length > 0 ? environment : undefined;
}

function mainEntry(manifest: Record<string, unknown>): string {
  const exportsField = manifest['exports'];
  if (typeof exportsField === 'string') return exportsField;
  if (typeof exportsField === 'object' && exportsField !== null) {
    const root = (exportsField as Record<string, unknown>)['.'] ?? exportsField;
    if (typeof root === 'string') return root;
    if (typeof root === 'object' && root !== null) {
      const target = (root as Record<string, unknown>)['import'] ?? (root as Record<string, unknown>)['default'];
      if (typeof target === 'string') return target;
    }
  }
  return typeof manifest['main'] === 'string' ? manifest['main'] : './index.js';
}

function notAnEnvironment(directory: string, why: string): CorralError {
  return new CorralError('ENV_ERR_NOT_ENVIRONMENT_PACKAGE', `${directory} is not an environment package: ${why}`, { details: { directory } });
}
