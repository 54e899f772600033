/**
 * The one rule for every test prerequisite (a sandbox backend, the evaluation data, a local python3): on a
 * developer machine a missing one skips its tests with a loud message; under CI=true it throws, so nothing
 * skips silently in CI. Call these at module top level, where a throw fails the file.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

type Environment = Readonly<Record<string, string | undefined>>;

/** True when `missing` is null; otherwise warns and returns false, or throws under CI=true. */
export function gate(what: string, missing: string | null, environment: Environment = process.env): boolean {
  if (missing === null) return true;
  const message = `[corral tests] ${what} unavailable: ${missing}`;
  if (environment.CI) throw new Error(`${message} (CI=true: refusing to skip)`);
  console.warn(`${message}; SKIPPING its tests`);
  return false;
}

/** The evaluation data directory (CORRAL_DATA_DIR) when it holds every one of `relativePaths`. */
export function dataDirectoryWith(relativePaths: readonly string[], environment: Environment = process.env): string | undefined {
  const directory = environment.CORRAL_DATA_DIR;
  const absent = directory ? relativePaths.map((path) => join(directory, path)).filter((path) => !existsSync(path)) : [];
  const missing = !directory
    ? 'CORRAL_DATA_DIR is not set (needs the evaluation data, e.g. ../shared/data)'
    : absent.length > 0
      ? `${absent.join(', ')} does not exist`
      : null;
  return gate('evaluation data', missing, environment) ? directory : undefined;
}

/** A local python3 and GNU timeout, for rubric tests that run trusted fixtures without a sandbox. */
export function python3Available(environment: Environment = process.env): boolean {
  const probe = spawnSync('bash', ['-c', 'python3 --version && timeout --version'], { stdio: 'ignore', env: environment as NodeJS.ProcessEnv });
  return gate(
    'local python3 with GNU timeout',
    probe.status === 0 ? null : `\`python3 --version && timeout --version\` failed (status ${probe.status})`,
    environment,
  );
}
