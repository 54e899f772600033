/**
 * Where installed environment packages live: <cache>/environment-packages, one npm prefix per package
 * (<name>/package.json, package-lock.json, node_modules/) beside corral's record of what was installed from where.
 *
 * One prefix per package, never a shared one: Node resolves a bare `corral` or `zod` by walking up node_modules
 * folders, and corral's resolution hooks answer only when that walk finds nothing. In a shared prefix, one package's
 * dependency named `corral` (or aliased to it, `"corral": "npm:evil@1"`) is hoisted to the top and wins for every
 * other package. In its own prefix it can only reach the package that asked for it.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CorralConfig } from '../config/load-config.js';
import { corralCacheDirectory } from '../core/cache-directory.js';

export interface EnvironmentCache {
  /** The folder holding every package's prefix, the install record and the install lock. */
  directory: string;
  /** corral's own record of each install (source, pinned version, integrity): installed-environments.json. */
  recordPath: string;
  lockPath: string;
}

/**
 * <corral's cache folder (core/cache-directory.ts)>/environment-packages. Installs made by earlier corral versions
 * into the shared prefix <cache>/environments are not read (that layout let one package shadow another's corral).
 */
export function environmentCache(config: Pick<CorralConfig, 'cache'>, env: NodeJS.ProcessEnv = process.env): EnvironmentCache {
  const directory = join(corralCacheDirectory(config.cache.dir, env), 'environment-packages');
  return { directory, recordPath: join(directory, 'installed-environments.json'), lockPath: join(directory, '.install.lock') };
}

export function ensureEnvironmentCache(cache: EnvironmentCache): void {
  mkdirSync(cache.directory, { recursive: true });
}

/** The npm prefix of one package: `@team/corral-env-x` -> <directory>/@team+corral-env-x (one folder level, no scope folder). */
export const packagePrefix = (cache: EnvironmentCache, name: string) => join(cache.directory, name.replace('/', '+'));

/** Creates an npm prefix with a private package.json, so npm installs there and never walks up to a project above it. */
export function createPrefix(directory: string): void {
  mkdirSync(directory, { recursive: true });
  const manifest = join(directory, 'package.json');
  if (!existsSync(manifest)) {
    const content = { name: 'corral-environment-prefix', private: true, description: 'One environment package installed by `corral env install`.' };
    writeFileSync(manifest, `${JSON.stringify(content, null, 2)}\n`);
  }
}
