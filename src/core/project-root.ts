import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The corral checkout or install this module runs from. Found by walking up to the package.json named
 * "corral", because the relative depth differs between src/ (tsx) and dist/src/ (compiled).
 */
let cachedRoot: string | undefined;

export function projectRoot(): string {
  if (cachedRoot) return cachedRoot;
  let directory = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(directory, 'package.json');
    if (existsSync(manifest) && readPackageName(manifest) === 'corral') return (cachedRoot = directory);
    const parent = dirname(directory);
    if (parent === directory) throw new Error('cannot find the corral package.json above ' + fileURLToPath(import.meta.url));
    directory = parent;
  }
}

function readPackageName(manifestPath: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(manifestPath, 'utf8')) as { name?: string }).name;
  } catch {
    return undefined;
  }
}

let cachedVersion: string | undefined;

/** corral's version, written on every container label so a reaper can tell which release made it. */
export function corralVersion(): string {
  if (cachedVersion) return cachedVersion;
  const manifest = JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8')) as { version?: string };
  return (cachedVersion = manifest.version ?? '0.0.0');
}
