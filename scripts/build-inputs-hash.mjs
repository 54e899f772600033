// What dist/ is compiled from, as one hash: every file under src/, the two tsconfig files and the lock file (the
// compiler's version). scripts/build-dist.mjs stamps dist/ with it, and the test suite runs the CLI from dist/ only
// when the stamp matches the checkout (vitest.config.ts), so a test never runs a stale build.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

const INPUT_FILES = ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];

export const BUILD_STAMP = '.inputs-hash';

function filesUnder(directory) {
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name));
}

export function buildInputsHash(root) {
  const hash = createHash('sha256');
  const files = [...filesUnder(join(root, 'src')), ...INPUT_FILES.map((file) => join(root, file))].map((path) => relative(root, path)).sort();
  for (const file of files)
    hash
      .update(file)
      .update('\0')
      // Absent counts as absent, not as an error: npm pack builds in a copy that has no lock file.
      .update(existsSync(join(root, file)) ? readFileSync(join(root, file)) : '\0absent')
      .update('\0');
  return hash.digest('hex').slice(0, 32);
}
