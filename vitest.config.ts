import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { availableParallelism, homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BUILD_STAMP, buildInputsHash } from './scripts/build-inputs-hash.mjs';
import { PARALLEL_E2E_FILES } from './test/helpers/e2e-groups.js';

// Projects: unit (no daemons, no listening), integration (real servers on port 0 inside the test process, no child
// process and no sandbox), conformance (one suite per sandbox backend), e2e-parallel (child processes, servers on
// port 0, private redis-servers, their own labelled containers) and e2e-serial (files that need the whole machine:
// load tests, host-wide cleanup, fault injection; one at a time, last). test/helpers/e2e-groups.ts says which e2e
// file is which; an unlisted file runs serially. Docker and isolate tests skip loudly on a laptop without them;
// under CI=true a missing backend fails instead. `npm run test:fast` is the inner loop: typecheck + unit.
//
// vitest runs groups (sequence.groupOrder) one after another, and every project of a group with the same
// maxWorkers. Its default, one worker less than the cores, is one worker on a 2-core machine, so set it: most
// files wait on child processes, sockets and Docker rather than compute. CORRAL_TEST_WORKERS overrides it.
const WORKERS = Number(process.env.CORRAL_TEST_WORKERS) || Math.max(2, availableParallelism());
// e2e files mostly wait (child processes, Docker, sockets), so three share even two cores; beyond four they contend
// for the Docker daemon more than they gain.
const E2E_WORKERS = Math.min(Math.max(WORKERS, 3), 4);
const parallelE2eFiles = PARALLEL_E2E_FILES.map((file) => `test/e2e/${file}`);
// e2e files share two cores with each other (and CI machines with other jobs): a test that takes 30 s alone may take
// twice that beside another, so the default bound against hangs is wider there. Timing assertions stay serial.
const E2E_TEST_TIMEOUT_MS = 180_000;

// vitest starts each group's files longest first, by the durations of the last run (so a group does not end on one
// long file with the other workers idle). It keeps them in Vite's cacheDir, node_modules/.vite by default, which a
// clean clone copies from setup.sh's cache as it was when the lock file last changed: stale, and missing every file
// moved since. So they live in corral's cache, one folder per clone path, seeded once from node_modules.
const cacheDir = join(
  process.env.CORRAL_CACHE_DIR || join(homedir(), '.cache', 'corral'),
  'vitest',
  createHash('sha256')
    .update(import.meta.dirname)
    .digest('hex')
    .slice(0, 16),
);
const RESULTS = join('vitest', createHash('sha1').update('').digest('hex'), 'results.json');
if (!existsSync(join(cacheDir, RESULTS)) && existsSync(join(import.meta.dirname, 'node_modules', '.vite', RESULTS))) {
  mkdirSync(dirname(join(cacheDir, RESULTS)), { recursive: true });
  copyFileSync(join(import.meta.dirname, 'node_modules', '.vite', RESULTS), join(cacheDir, RESULTS));
}

// The `corral` processes tests start run the compiled dist/ when it was built from exactly these sources (`npm test`'s
// checks build it, cached by content): compiling src/ through tsx in every child process cost about half their start-up
// CPU, and the e2e group starts hundreds. Without a matching build (a test run by hand after an edit), or with
// CORRAL_RUN_BUILD=0, they run src/.
const stampPath = join(import.meta.dirname, 'dist', BUILD_STAMP);
const buildMatches =
  process.env.CORRAL_RUN_BUILD !== '0' && existsSync(stampPath) && readFileSync(stampPath, 'utf8').trim() === buildInputsHash(import.meta.dirname);

export default defineConfig({
  cacheDir,
  test: {
    pool: 'forks',
    env: buildMatches ? { CORRAL_RUN_BUILD: '1' } : {},
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          maxWorkers: WORKERS,
          // Unit files share each worker's module cache instead of importing everything again per file: half the
          // CPU of `npm run test:fast`. So a unit test restores what it changes (spies, env, globals: done here
          // after each test; timers and process.exitCode: by the test).
          isolate: false,
          restoreMocks: true,
          unstubEnvs: true,
          unstubGlobals: true,
          sequence: { groupOrder: 0 },
        },
      },
      { extends: true, test: { name: 'integration', include: ['test/integration/**/*.test.ts'], maxWorkers: WORKERS, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'conformance', include: ['test/conformance/**/*.test.ts'], maxWorkers: E2E_WORKERS, sequence: { groupOrder: 1 } } },
      {
        extends: true,
        test: {
          name: 'e2e-parallel',
          include: parallelE2eFiles,
          maxWorkers: E2E_WORKERS,
          testTimeout: E2E_TEST_TIMEOUT_MS,
          // As unit: files share a worker's module cache instead of importing src/ again per file (a third less CPU in
          // a group that is CPU-bound on two cores). So a parallel file restores what it changes in its own process and
          // closes what it opens (test/helpers/e2e-groups.ts); serial files keep a fresh process each (descriptor
          // counts, fault injection).
          isolate: false,
          restoreMocks: true,
          unstubEnvs: true,
          unstubGlobals: true,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e-serial',
          include: ['test/e2e/**/*.test.ts'],
          exclude: parallelE2eFiles,
          fileParallelism: false,
          maxWorkers: 1,
          testTimeout: E2E_TEST_TIMEOUT_MS,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
