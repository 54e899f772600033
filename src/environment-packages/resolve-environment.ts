/**
 * From what a user types (`corral eval <env>`, `corral serve --env <env>`, `corral env show <env>`) to an
 * Environment and where it came from, in this order: a built-in name; an installed package's name (optionally
 * name@version); a module file or a package folder at that path. Nothing is ever installed here: a name that is not
 * installed is refused with the exact `corral env install` command, so a typo (corral-env-vualt) never fetches and
 * runs a stranger's package without the user asking for it. A Harbor / Terminal-Bench task folder at that path is
 * located as a task folder (task-folder.ts): its rollouts are trials, which `corral eval` runs with the trial executor.
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { CorralError } from '../core/errors.js';
import type { Environment } from '../runner/contract/environment.js';
import type { EnvironmentDefinition } from '../runner/contract/environment-args.js';
import { loadEnvironmentModule } from '../runner/environments/load-environment.js';
import type { EnvironmentCache } from './environment-cache.js';
import { isEnvironmentPackageName, readEnvironmentPackage } from './environment-package-manifest.js';
import { type EnvironmentLocation, type EnvironmentSource, describeEnvironmentSource } from './environment-source.js';
import { isTaskFolder } from './task-folder.js';
import { findInstalledRecord, installedPackageDirectory, readInstalledRecords } from './installed-environments.js';

export interface ResolvedEnvironment {
  /** An Environment, or a factory to bind with the run's env args (bindEnvironmentArgs). */
  environment: EnvironmentDefinition;
  location: EnvironmentLocation;
  /** The module file loaded (its other exports, such as `agents`, come from it); null for a built-in. */
  modulePath: string | null;
  source: EnvironmentSource;
}

export interface ResolveEnvironmentOptions {
  builtIns: Readonly<Record<string, () => Environment>>;
  cache: EnvironmentCache;
  log: (line: string) => void;
  /** How long the module's import may take (config environments.loadTimeoutMs); ENV_ERR_LOAD_TIMEOUT after. */
  loadTimeoutMs?: number;
}

export async function resolveEnvironment(nameOrPath: string, options: ResolveEnvironmentOptions): Promise<ResolvedEnvironment> {
  const location = await locateEnvironment(nameOrPath, options);
  if (location.kind === 'task-folder')
    throw new CorralError(
      'TASK_ERR_UNSUPPORTED',
      `${location.path} is a Harbor / Terminal-Bench task folder: run its trials with \`corral eval ${location.path}\` (serving one as MCP tools is not supported yet)`,
      { details: { path: location.path } },
    );
  const environment =
    location.kind === 'built-in'
      ? options.builtIns[location.name]!()
      : await loadEnvironmentModule(modulePathOf(location), { timeoutMs: options.loadTimeoutMs });
  return { environment, location, modulePath: location.kind === 'built-in' ? null : modulePathOf(location), source: describeEnvironmentSource(location) };
}

const modulePathOf = (location: Extract<EnvironmentLocation, { kind: 'package' | 'module' }>) =>
  location.kind === 'package' ? location.entryPath : location.path;

/** Where `nameOrPath` points; loads and installs nothing. */
export async function locateEnvironment(nameOrPath: string, options: ResolveEnvironmentOptions): Promise<EnvironmentLocation> {
  if (Object.hasOwn(options.builtIns, nameOrPath)) return { kind: 'built-in', name: nameOrPath };
  const { name, version } = splitPackageSpec(nameOrPath);
  const record = findInstalledRecord(options.cache, name);
  if (record && (version === undefined || version === record.version)) {
    const manifest = readEnvironmentPackage(installedPackageDirectory(options.cache, name));
    return { kind: 'package', name: manifest.name, version: manifest.version, directory: manifest.directory, entryPath: manifest.entryPath, record };
  }
  const path = resolve(nameOrPath);
  if (existsSync(path)) {
    if (statSync(path).isFile()) return { kind: 'module', path };
    if (isTaskFolder(path)) return { kind: 'task-folder', path };
    // A package folder (a checkout of an environment package): its declared entry module.
    const manifest = readEnvironmentPackage(path);
    return { kind: 'module', path: manifest.entryPath };
  }
  throw notFound(nameOrPath, path, options);
}

/** `name`, `name@1.2.3`, `@scope/name@1.2.3`. */
export function splitPackageSpec(spec: string): { name: string; version: string | undefined } {
  const at = spec.lastIndexOf('@');
  return at > 0 ? { name: spec.slice(0, at), version: spec.slice(at + 1) } : { name: spec, version: undefined };
}

function notFound(nameOrPath: string, path: string, options: ResolveEnvironmentOptions): CorralError {
  const installed = readInstalledRecords(options.cache).map((record) => `${record.name}@${record.version}`);
  const hint = isEnvironmentPackageName(splitPackageSpec(nameOrPath).name)
    ? `${nameOrPath} is not installed and corral never fetches a package on first use: check the name, then run \`corral env install ${nameOrPath}\``
    : `a package must be installed first with \`corral env install ${nameOrPath}\``;
  return new CorralError(
    'ENV_ERR_NOT_FOUND',
    `no environment "${nameOrPath}": not a built-in (${Object.keys(options.builtIns).join(', ')}), not an installed package (${installed.join(', ') || 'none installed'}), and no module file or package folder at ${path}; ${hint}`,
    { details: { nameOrPath, path, installed } },
  );
}
