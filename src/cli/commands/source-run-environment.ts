/**
 * What `corral rescore` and `corral replay` share: the environment to use on a saved run (`--env`, else the one the
 * run used, with the run's environment arguments unless `--env-args` is given), its source for metadata.json, and
 * the new run's directory (a sibling of the source by default, never one that holds a run).
 */
import { basename, dirname, join, resolve } from 'node:path';
import { type CorralConfig, loadConfig } from '../../config/load-config.js';
import { CorralError } from '../../core/errors.js';
import { environmentCache } from '../../environment-packages/environment-cache.js';
import type { EnvironmentSource } from '../../environment-packages/environment-source.js';
import { resolveEnvironment } from '../../environment-packages/resolve-environment.js';
import { bindEnvironmentArgs } from '../../runner/contract/environment-args.js';
import type { Environment, Example } from '../../runner/contract/environment.js';
import { builtInEnvironments } from '../../runner/environments/index.js';
import { exampleOfRecord } from '../../runner/replay/record-trajectory.js';
import { type SourceRun, sourceEnvironmentArgs, sourceEnvironmentName } from '../../runner/replay/source-run.js';
import { parseEnvironmentArgs } from '../eval/eval-options.js';
import { refuseOccupiedRunDirectory } from '../eval/run-directory.js';

export interface SourceRunEnvironment {
  environment: Environment;
  /** What the user named (or the source's), e.g. `wiki-search` or a module path. */
  name: string;
  source: EnvironmentSource;
  /** The module file loaded (its `agents` export may name agents); null for a built-in. */
  modulePath: string | null;
  config: CorralConfig;
}

export async function environmentForSourceRun(
  run: SourceRun,
  flags: { env?: string; envArgs?: string; dataDir?: string; backend?: string },
  log: (line: string) => void,
): Promise<SourceRunEnvironment> {
  refuseTerminalRun(run);
  const name = flags.env ?? sourceEnvironmentName(run);
  if (name === undefined) throw new CorralError('CFG_ERR_INVALID', `${run.directory}: metadata.json names no environment; pass --env <env>`);
  const config = loadConfig({ flags: { ...(flags.dataDir ? { dataDir: flags.dataDir } : {}), ...(flags.backend ? { backend: flags.backend } : {}) } });
  const resolved = await resolveEnvironment(name, {
    builtIns: builtInEnvironments,
    cache: environmentCache(config),
    log,
    loadTimeoutMs: config.environments.loadTimeoutMs,
  });
  const args = flags.envArgs === undefined ? sourceEnvironmentArgs(run) : parseEnvironmentArgs(flags.envArgs);
  return { environment: await bindEnvironmentArgs(resolved.environment, args), name, source: resolved.source, modulePath: resolved.modulePath, config };
}

/** `--out`, else `<source>-<what>-<stamp>` beside the source (so `corral view` lists it with its run). */
export function newRunDirectory(run: SourceRun, out: string | undefined, what: string): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '');
  const directory = out ? resolve(out) : join(dirname(run.directory), `${basename(run.directory)}-${what}-${stamp}`);
  refuseOccupiedRunDirectory(directory);
  return directory;
}

/** The source's examples, in the order their first record appears. */
export function sourceExamples(run: SourceRun): Example[] {
  const seen = new Map<string, Example>();
  for (const record of run.records) if (!seen.has(record.example_id)) seen.set(record.example_id, exampleOfRecord(record));
  return [...seen.values()];
}

export function positiveInteger(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new CorralError('CFG_ERR_INVALID', `${flag} must be a whole number of at least 1, got ${value}`);
  return parsed;
}

/**
 * A terminal run's reward is its task's verifier in the agent's final file system: `corral rescore` verifies it again
 * (rescore-terminal.ts); a replay cannot continue it.
 */
function refuseTerminalRun(run: SourceRun): void {
  const source = run.metadata['env_source'] as { kind?: unknown } | undefined;
  if (run.metadata['env'] !== 'terminal' && source?.kind !== 'task-folder') return;
  throw new CorralError(
    'RESCORE_ERR_NEEDS_SANDBOX',
    `${run.directory} is a terminal run: its rewards come from each task's verifier in the agent's final file system, so it cannot be replayed from its trajectories (\`corral rescore\` verifies its trials again)`,
    { details: { path: run.directory } },
  );
}
