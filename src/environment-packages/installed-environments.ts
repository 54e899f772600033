/**
 * corral's record of the environment packages it installed (installed-environments.json in the cache prefix):
 * what was asked for, the version npm pinned, where it came from (registry URL or file) and its integrity, so
 * `corral env list` can say what is there and a run's metadata can name exactly what it ran.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type EnvironmentCache, packagePrefix } from './environment-cache.js';

export interface InstalledEnvironmentRecord {
  /** npm package name. */
  name: string;
  /** The version npm installed (pinned exactly in the prefix's package.json). */
  version: string;
  /** What `corral env install` was given: a registry spec, or the absolute path of a tarball or folder. */
  installedFrom: string;
  /** package-lock.json's `resolved` (registry tarball URL or file: path), when npm wrote one. */
  resolved: string | null;
  integrity: string | null;
  installedAt: string;
}

interface RecordFile {
  version: 1;
  packages: Record<string, InstalledEnvironmentRecord>;
}

/** The records whose package folder is still there, by name. */
export function readInstalledRecords(cache: EnvironmentCache): InstalledEnvironmentRecord[] {
  return Object.values(readRecordFile(cache).packages)
    .filter((record) => existsSync(installedPackageDirectory(cache, record.name)))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The record of `name`, only while its package folder is still in node_modules. */
export function findInstalledRecord(cache: EnvironmentCache, name: string): InstalledEnvironmentRecord | undefined {
  const record = readRecordFile(cache).packages[name];
  return record && existsSync(installedPackageDirectory(cache, name)) ? record : undefined;
}

/** The package's folder inside its own prefix (environment-cache.ts says why each package has one). */
export const installedPackageDirectory = (cache: EnvironmentCache, name: string) => join(packagePrefix(cache, name), 'node_modules', ...name.split('/'));

export function writeInstalledRecord(cache: EnvironmentCache, record: InstalledEnvironmentRecord): void {
  const file = readRecordFile(cache);
  file.packages[record.name] = record;
  writeRecordFile(cache, file);
}

export function removeInstalledRecord(cache: EnvironmentCache, name: string): void {
  const file = readRecordFile(cache);
  delete file.packages[name];
  writeRecordFile(cache, file);
}

function readRecordFile(cache: EnvironmentCache): RecordFile {
  if (!existsSync(cache.recordPath)) return { version: 1, packages: {} };
  try {
    const parsed = JSON.parse(readFileSync(cache.recordPath, 'utf8')) as Partial<RecordFile>;
    return { version: 1, packages: typeof parsed.packages === 'object' && parsed.packages !== null ? parsed.packages : {} };
  } catch {
    // A torn or hand-edited record loses only the install history; the packages stay in node_modules.
    return { version: 1, packages: {} };
  }
}

function writeRecordFile(cache: EnvironmentCache, file: RecordFile): void {
  const temporary = `${cache.recordPath}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(file, null, 2)}\n`);
  renameSync(temporary, cache.recordPath);
}
