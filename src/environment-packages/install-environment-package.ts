/**
 * `corral env install <name|path|tarball>`: npm installs the package into an npm prefix of its own in corral's
 * cache, pinned to the exact version it resolved; corral checks it is an environment package and records where it
 * came from. One install at a time per cache (a lock file), so two installs never race for one record or prefix.
 */
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CorralError } from '../core/errors.js';
import { withFileLock } from '../core/file-lock.js';
import { type EnvironmentCache, createPrefix, ensureEnvironmentCache, packagePrefix } from './environment-cache.js';
import { type EnvironmentPackageManifest, readEnvironmentPackage } from './environment-package-manifest.js';
import { type InstalledEnvironmentRecord, installedPackageDirectory, removeInstalledRecord, writeInstalledRecord } from './installed-environments.js';
import { NPM_INSTALL_FLAGS, runNpm } from './npm-command.js';

export interface InstalledEnvironment {
  record: InstalledEnvironmentRecord;
  manifest: EnvironmentPackageManifest;
}

/** A local tarball or folder is given to npm as an absolute path; anything else is a registry spec (name, name@range). */
export function normaliseInstallSpec(spec: string): { npmSpec: string; localPath: string | null } {
  const looksLocal = spec.startsWith('.') || spec.startsWith('/') || spec.endsWith('.tgz') || spec.endsWith('.tar.gz');
  const path = resolve(spec);
  if (looksLocal || existsSync(path)) {
    if (!existsSync(path)) throw new CorralError('ENV_ERR_NOT_FOUND', `cannot install ${spec}: no file or folder at ${path}`, { details: { spec, path } });
    return { npmSpec: path, localPath: path };
  }
  return { npmSpec: spec, localPath: null };
}

export async function installEnvironmentPackage(
  spec: string,
  options: { cache: EnvironmentCache; log: (line: string) => void },
): Promise<InstalledEnvironment> {
  const { cache, log } = options;
  const { npmSpec } = normaliseInstallSpec(spec);
  ensureEnvironmentCache(cache);
  return withFileLock(
    cache.lockPath,
    'environment package install',
    async () => {
      // A fresh prefix of its own (environment-cache.ts), filled beside the old one and swapped in only once it
      // holds an environment package: a failed install leaves the previous version in place. Same depth as the
      // final prefix, so the relative file: paths npm writes into its lockfile stay true after the rename.
      const staging = join(cache.directory, `.staging-${process.pid}-${Date.now()}`);
      createPrefix(staging);
      try {
        log(`installing ${npmSpec} into a prefix of its own under ${cache.directory} (npm, install scripts disabled)`);
        await runNpm(['install', ...NPM_INSTALL_FLAGS, npmSpec], { cwd: staging, what: `installing ${spec}` });
        const name = installedName(staging, npmSpec);
        const prefix = packagePrefix(cache, name);
        readEnvironmentPackage(join(staging, 'node_modules', ...name.split('/')));
        const locked = lockEntry(staging, name);
        rmSync(prefix, { recursive: true, force: true });
        renameSync(staging, prefix);
        const manifest = readEnvironmentPackage(installedPackageDirectory(cache, name));
        const record: InstalledEnvironmentRecord = {
          name,
          version: manifest.version,
          installedFrom: npmSpec,
          resolved: locked.resolved,
          integrity: locked.integrity,
          installedAt: new Date().toISOString(),
        };
        writeInstalledRecord(cache, record);
        return { record, manifest };
      } finally {
        rmSync(staging, { recursive: true, force: true });
      }
    },
    log,
  );
}

/** Deletes the package's prefix and its record; ENV_ERR_NOT_FOUND when it is not installed. */
export async function uninstallEnvironmentPackage(name: string, options: { cache: EnvironmentCache; log: (line: string) => void }): Promise<void> {
  const { cache, log } = options;
  ensureEnvironmentCache(cache);
  await withFileLock(
    cache.lockPath,
    'environment package install',
    async () => {
      const prefix = packagePrefix(cache, name);
      if (!existsSync(installedPackageDirectory(cache, name))) {
        throw new CorralError('ENV_ERR_NOT_FOUND', `cannot remove ${name}: it is not installed in ${cache.directory} (corral env list shows what is)`, {
          details: { name },
        });
      }
      rmSync(prefix, { recursive: true, force: true });
      removeInstalledRecord(cache, name);
    },
    log,
  );
}

/** The one dependency npm saved into the fresh prefix's package.json: the package's own name, whatever the spec was. */
function installedName(prefix: string, npmSpec: string): string {
  const dependencies = readJson(join(prefix, 'package.json'))?.['dependencies'] as Record<string, string> | undefined;
  const names = Object.keys(dependencies ?? {});
  if (names.length === 1) return names[0]!;
  throw new CorralError(
    'ENV_ERR_INSTALL_FAILED',
    `npm installed ${npmSpec} but the prefix ${prefix} does not name exactly one package: ${names.join(', ') || 'none'}`,
    {
      details: { npmSpec, dependencies: dependencies ?? {} },
    },
  );
}

function lockEntry(prefix: string, name: string): { resolved: string | null; integrity: string | null } {
  const lock = readJson(join(prefix, 'package-lock.json'));
  const entry = (lock?.['packages'] as Record<string, { resolved?: string; integrity?: string }> | undefined)?.[`node_modules/${name}`];
  return { resolved: entry?.resolved ?? null, integrity: entry?.integrity ?? null };
}

function readJson(path: string): Record<string, unknown> | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
}
