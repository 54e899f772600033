/**
 * What produced a run, for metadata.json (`env_source`): a built-in of this corral version, an installed package
 * (name, version, folder, where it was installed from), or a local module (absolute path, sha256 of the file, and
 * the package.json above it when there is one). `corral eval` and `corral serve` both describe sources this way.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { corralVersion } from '../core/project-root.js';
import { readPackageJson } from './environment-package-manifest.js';
import type { InstalledEnvironmentRecord } from './installed-environments.js';

export type EnvironmentLocation =
  | { kind: 'built-in'; name: string }
  | { kind: 'package'; name: string; version: string; directory: string; entryPath: string; record: InstalledEnvironmentRecord | null }
  | { kind: 'module'; path: string }
  | { kind: 'task-folder'; path: string };

export type EnvironmentSource =
  | { kind: 'built-in'; name: string; corral_version: string }
  | {
      kind: 'package';
      name: string;
      version: string;
      path: string;
      module: string;
      module_sha256: string;
      installed_from: string | null;
      resolved: string | null;
      integrity: string | null;
    }
  | { kind: 'module'; path: string; sha256: string; package: { name: string; version: string | null; path: string } | null }
  | { kind: 'task-folder'; path: string };

export function describeEnvironmentSource(location: EnvironmentLocation): EnvironmentSource {
  if (location.kind === 'built-in') return { kind: 'built-in', name: location.name, corral_version: corralVersion() };
  if (location.kind === 'package') {
    return {
      kind: 'package',
      name: location.name,
      version: location.version,
      path: location.directory,
      module: location.entryPath,
      module_sha256: sha256File(location.entryPath),
      installed_from: location.record?.installedFrom ?? null,
      resolved: location.record?.resolved ?? null,
      integrity: location.record?.integrity ?? null,
    };
  }
  if (location.kind === 'task-folder') return { kind: 'task-folder', path: location.path };
  return { kind: 'module', path: location.path, sha256: sha256File(location.path), package: enclosingPackage(location.path) };
}

const sha256File = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** The nearest package.json with a name above the module, if any. */
function enclosingPackage(modulePath: string): { name: string; version: string | null; path: string } | null {
  let directory = dirname(modulePath);
  for (;;) {
    const manifest = readPackageJson(directory);
    if (manifest && typeof manifest['name'] === 'string') {
      return { name: manifest['name'], version: typeof manifest['version'] === 'string' ? manifest['version'] : null, path: directory };
    }
    const parent = dirname(directory);
    if (parent === directory) return null;
    directory = parent;
  }
}
