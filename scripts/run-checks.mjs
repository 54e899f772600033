// The checks `npm test` runs before vitest (typecheck, eslint, prettier, flake8, and the build the e2e tests run), all at once, each with its cache
// outside the clone: on a warm cache they take about a seventh of the CPU they take cold. Each check's output is
// printed whole when it ends (never interleaved), and the command fails when any check fails.
//
// The caches sit in corral's cache folder under a key made of this clone's absolute path and the lock file, so a fresh
// clone at the same path reuses them and a clone elsewhere (or new dependencies) starts cold. Each cache compares file
// contents, not times (tsc's build info stores a hash per file; eslint and prettier use --cache-strategy content), and
// eslint and prettier also key their entries by their own configuration.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

const ROOT = resolve(import.meta.dirname, '..');
const cacheKey = createHash('sha256')
  .update(ROOT)
  .update('\0')
  .update(readFileSync(join(ROOT, 'package-lock.json')))
  .digest('hex')
  .slice(0, 16);
const cacheDirectory = join(process.env.CORRAL_CACHE_DIR || join(homedir(), '.cache', 'corral'), 'checks', cacheKey);
mkdirSync(cacheDirectory, { recursive: true });

// Each check is its package.json script, so `npm run <script>` stays the one definition; the flags only add a cache.
const CHECKS = [
  { script: 'typecheck', cacheFlags: ['--incremental', '--tsBuildInfoFile', join(cacheDirectory, 'typecheck.tsbuildinfo')] },
  { script: 'lint', cacheFlags: ['--cache', '--cache-strategy', 'content', '--cache-location', join(cacheDirectory, 'eslint-cache')] },
  { script: 'format:check', cacheFlags: ['--cache', '--cache-strategy', 'content', '--cache-location', join(cacheDirectory, 'prettier-cache')] },
  // Two flake8 runs joined by &&: nothing to append to, and flake8 takes about a second.
  { script: 'lint:agent', cacheFlags: [] },
  // The dist/ the e2e tests run the CLI from (vitest.config.ts), cached by the hash of its sources.
  { script: 'build', cacheFlags: ['--cached'] },
];

function runCheck({ script, cacheFlags }) {
  const startedAt = performance.now();
  return new Promise((resolveCheck) => {
    const args = ['run', '--silent', script, ...(cacheFlags.length > 0 ? ['--', ...cacheFlags] : [])];
    const child = spawn('npm', args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk.toString()));
    child.stderr.on('data', (chunk) => (output += chunk.toString()));
    child.once('error', (error) => resolveCheck({ script, passed: false, output: `${output}${error.message}\n`, seconds: 0 }));
    child.once('close', (code, signal) => {
      const seconds = (performance.now() - startedAt) / 1000;
      const passed = code === 0;
      const status = passed ? '' : `npm run ${script} exited ${code ?? signal}\n`;
      resolveCheck({ script, passed, output: output + status, seconds });
    });
  }).then((result) => {
    const heading = `check ${result.script}: ${result.passed ? 'passed' : 'FAILED'} in ${result.seconds.toFixed(1)} s`;
    // A passing check's output (eslint's warnings, say) is printed too, after its heading.
    const text = result.output.trimEnd() === '' ? heading : `${heading}\n${result.output.trimEnd()}`;
    // One stream for every check, so the reports never cut into each other.
    console.log(text);
    return result;
  });
}

const results = await Promise.all(CHECKS.map(runCheck));
const failed = results.filter((result) => !result.passed).map((result) => result.script);
if (failed.length > 0) console.log(`checks failed: ${failed.join(', ')}`);
process.exitCode = failed.length > 0 ? 1 : 0;
