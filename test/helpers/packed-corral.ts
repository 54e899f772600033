/**
 * One `npm pack` of this checkout per content, shared by the e2e files that install corral as users get it. The
 * tarball is kept under the OS temp dir keyed by a hash of everything the package is built from, so a second test
 * file (or a rerun with nothing changed) reuses it instead of building dist/ again; a lock keeps two packs apart.
 * The pack runs in a copy of the package's inputs, because prepack rewrites dist/ and viewer/dist/, and e2e files
 * running in parallel serve the checkout's viewer/dist/ to a browser.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { withFileLock } from '../../src/core/file-lock.js';

const execFileAsync = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
/** What `npm pack` reads: the manifest and its "files" (dist/ is built, so its sources count), and the prepack scripts' inputs. */
function packInputs(): string[] {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files?: string[] };
  const shipped = (manifest.files ?? []).map((entry) => entry.replace(/\/$/, '')).filter((entry) => !entry.startsWith('dist'));
  // The lock file is never packed, but prepack's dist/ is the one `npm test` built, found by a hash that includes it.
  return ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts', 'src', 'viewer/page', ...shipped];
}

export const NPM_CACHE = join(tmpdir(), 'corral-npm-cache');

export async function packedCorralTarball(): Promise<string> {
  const directory = join(tmpdir(), 'corral-packed', contentHash());
  const existing = () => (existsSync(directory) ? readdirSync(directory).find((name) => name.endsWith('.tgz')) : undefined);
  const found = existing();
  if (found) return join(directory, found);
  mkdirSync(join(tmpdir(), 'corral-packed'), { recursive: true });
  return withFileLock(
    join(tmpdir(), 'corral-packed', 'pack.lock'),
    'npm pack of corral',
    async () => {
      const packed = existing();
      if (packed) return join(directory, packed);
      const staging = `${directory}.staging-${process.pid}`;
      mkdirSync(staging, { recursive: true });
      const copy = copyOfPackInputs();
      try {
        await execFileAsync('npm', ['pack', '--pack-destination', staging], {
          cwd: copy,
          env: { ...process.env, npm_config_cache: NPM_CACHE },
          maxBuffer: 64 * 1024 * 1024,
        });
        renameSync(staging, directory);
      } finally {
        rmSync(staging, { recursive: true, force: true });
        rmSync(copy, { recursive: true, force: true });
      }
      return join(directory, existing()!);
    },
    () => undefined,
  );
}

/** A scratch folder holding what `npm pack` reads, with the checkout's node_modules linked in for prepack's tools. */
function copyOfPackInputs(): string {
  const copy = mkdtempSync(join(tmpdir(), 'corral-pack-inputs-'));
  for (const input of packInputs()) {
    if (!existsSync(join(ROOT, input))) continue;
    cpSync(join(ROOT, input), join(copy, input), { recursive: true, filter: (source) => !/[/\\](node_modules|__pycache__)$/.test(source) });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
  return copy;
}

function contentHash(): string {
  const hash = createHash('sha256');
  const visit = (relativePath: string) => {
    const path = join(ROOT, relativePath);
    if (!existsSync(path)) return;
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path).sort()) if (name !== 'node_modules' && name !== '__pycache__') visit(join(relativePath, name));
      return;
    }
    hash.update(relativePath).update('\0').update(readFileSync(path)).update('\0');
  };
  for (const input of packInputs()) visit(input);
  return hash.digest('hex').slice(0, 16);
}
