// Compiles src/ into a clean dist/ (tsconfig.build.json), so a file deleted or moved out of src/ (the old src/bench,
// say) never lingers in the package from an older build.
//
// With --cached (prepack and the test suite's checks run it so): nothing when dist/ is already stamped with the hash
// of its inputs, a copy from corral's cache folder when that hash was compiled before (a fresh clone of the same
// commit, the copy `npm pack` builds in), and else a build that is then kept in the cache. The e2e tests run the CLI
// from a dist/ whose stamp matches (about half the CPU of compiling src/ through tsx in every child process).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { URL, fileURLToPath } from 'node:url';
import { BUILD_STAMP, buildInputsHash } from './build-inputs-hash.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const cached = process.argv.includes('--cached');
const inputsHash = buildInputsHash(root);

function stampOf(directory) {
  try {
    return readFileSync(join(directory, BUILD_STAMP), 'utf8').trim();
  } catch {
    return undefined;
  }
}

function compileInto(directory) {
  rmSync(directory, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', directory], { cwd: root, stdio: 'inherit' });
  writeFileSync(join(directory, BUILD_STAMP), `${inputsHash}\n`);
}

if (!cached) {
  compileInto(dist);
} else if (stampOf(dist) !== inputsHash) {
  const cacheRoot = join(process.env.CORRAL_CACHE_DIR || join(homedir(), '.cache', 'corral'), 'dist');
  const kept = join(cacheRoot, inputsHash);
  if (stampOf(kept) !== inputsHash) {
    // Compiled beside its final place and renamed in, so a build killed halfway is never taken for a finished one.
    const staging = `${kept}.staging-${process.pid}`;
    compileInto(staging);
    rmSync(kept, { recursive: true, force: true });
    renameSync(staging, kept);
    // Only the newest few builds are kept: each is a few megabytes, one per commit tested.
    const builds = readdirSync(cacheRoot)
      .filter((name) => /^[0-9a-f]{32}$/.test(name) && name !== inputsHash)
      .sort((a, b) => statSync(join(cacheRoot, b)).mtimeMs - statSync(join(cacheRoot, a)).mtimeMs);
    for (const old of builds.slice(4)) rmSync(join(cacheRoot, old), { recursive: true, force: true });
  }
  rmSync(dist, { recursive: true, force: true });
  mkdirSync(dist, { recursive: true });
  cpSync(kept, dist, { recursive: true });
}
