/**
 * What a run is, stored in metadata.json as `command` so that `--resume DIR` rebuilds it instead of trusting the
 * flags typed again: the environment and its dataset paths, the agent and model, the example and rollout counts,
 * sampling, seed, max turns and backend. A flag given on resume must equal the stored value; a resumed run never
 * changes what the run is. Operational flags (concurrency, progress, timeouts, --max-errors) may differ.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { CorralError } from '../../core/errors.js';
import { type EvalOptions, flagName, parseEnvironmentArgs, parseRoleModels, parseSamplingArgs } from './eval-options.js';

export interface RunCommand {
  /** A built-in environment's name, an environment package's name, or the absolute path of an environment module. */
  env: string;
  /** The dataset flags, and `args`: the validated --env-args (absent in runs written before env args existed). */
  env_args: { corpus: string[] | null; questions: string | null; dataset: string | null; args?: Record<string, unknown> };
  data_dir: string | null;
  agent: string;
  model: string | null;
  /** --model-for: the model of each role named there (environments with roles; absent: self-play). */
  role_models?: Record<string, string>;
  base_url: string | null;
  /** As asked for: -1 is the whole dataset. */
  num_examples: number;
  rollouts_per_example: number;
  sampling_args: Record<string, unknown>;
  /** --token-in (absent: off). */
  token_in?: boolean;
  seed: number | null;
  max_turns: number | null;
  /** As asked for (auto, docker, process); metadata.backend is what auto resolved to. */
  backend: 'auto' | 'docker' | 'process';
}

type Comparable = Omit<RunCommand, 'agent' | 'base_url' | 'data_dir'> & {
  agent: string | undefined;
  base_url: string | undefined;
  data_dir: string | undefined;
};

/** The command fields the user's flags set, normalised as stored (absolute paths, parsed sampling JSON). */
export function commandFromFlags(options: EvalOptions, environmentArgument: string | undefined, builtInNames: readonly string[]): Partial<Comparable> {
  const given: Partial<Comparable> = {};
  // A path is stored absolute, so --resume works from any folder; a built-in or package name is stored as given.
  if (environmentArgument !== undefined)
    given.env = !builtInNames.includes(environmentArgument) && existsSync(resolve(environmentArgument)) ? resolve(environmentArgument) : environmentArgument;
  if (options.corpus || options.questions || options.dataset || options.envArgs !== undefined) {
    given.env_args = {
      corpus: options.corpus?.map((path) => resolve(path)) ?? null,
      questions: options.questions ? resolve(options.questions) : null,
      dataset: options.dataset ? resolve(options.dataset) : null,
      ...(options.envArgs !== undefined ? { args: parseEnvironmentArgs(options.envArgs) } : {}),
    };
  }
  if (options.dataDir !== undefined) given.data_dir = resolve(options.dataDir);
  if (options.agent !== undefined) given.agent = options.agent;
  if (options.model !== undefined) given.model = options.model;
  if (options.modelFor !== undefined) given.role_models = parseRoleModels(options.modelFor);
  if (options.baseUrl !== undefined) given.base_url = options.baseUrl;
  if (options.numExamples !== undefined) given.num_examples = options.numExamples;
  if (options.rolloutsPerExample !== undefined) given.rollouts_per_example = options.rolloutsPerExample;
  if (options.sampling !== undefined) given.sampling_args = parseSamplingArgs(options.sampling);
  if (options.seed !== undefined) given.seed = options.seed;
  if (options.maxTurns !== undefined) given.max_turns = options.maxTurns;
  if (options.backend !== undefined) given.backend = options.backend;
  return given;
}

/** Which flag sets which field, for messages. */
const FLAGS: Record<string, string> = {
  env: '<env>',
  data_dir: flagName('dataDir'),
  agent: flagName('agent'),
  model: flagName('model'),
  role_models: flagName('modelFor'),
  base_url: flagName('baseUrl'),
  num_examples: flagName('numExamples'),
  rollouts_per_example: flagName('rolloutsPerExample'),
  sampling_args: flagName('sampling'),
  seed: flagName('seed'),
  max_turns: flagName('maxTurns'),
  backend: flagName('backend'),
};

/**
 * Throws RUNNER_ERR_RESUME_MISMATCH naming every flag whose value differs from the stored run, with both values.
 * `resolvedBackend` is what the run's backend resolved to: --backend auto on resume matches it.
 */
export function assertResumeMatches(stored: RunCommand, given: Partial<Comparable>, resolvedBackend: string | undefined, directory: string): void {
  const mismatches: string[] = [];
  const pairs = (Object.entries(given) as [keyof RunCommand, unknown][]).flatMap(([key, value]): [string, unknown, unknown][] =>
    // Dataset paths one by one: giving --dataset again need not repeat --corpus.
    key === 'env_args'
      ? Object.entries(value as RunCommand['env_args'])
          .filter(([, path]) => path !== null)
          .map(([name, path]) => [name, path, stored.env_args?.[name as keyof RunCommand['env_args']] ?? null])
      : [[key, value, stored[key]]],
  );
  for (const [key, value, storedValue] of pairs) {
    if (key === 'backend' && (value === 'auto' || value === resolvedBackend)) continue;
    if (key === 'base_url' && typeof value === 'string' && typeof storedValue === 'string' && trimSlash(value) === trimSlash(storedValue)) continue;
    if (stableJson(value) !== stableJson(storedValue))
      mismatches.push(`${FLAGS[key] ?? `--${key}`} ${show(value)} differs from the run's ${show(storedValue)}`);
  }
  if (mismatches.length > 0) {
    throw new CorralError(
      'RUNNER_ERR_RESUME_MISMATCH',
      `cannot resume ${directory}: ${mismatches.join('; ')}. --resume takes the run's own settings from metadata.json: drop these flags, or start a new run with --out`,
      { details: { mismatches } },
    );
  }
}

/** Reads `command` from a run's metadata.json, or explains why that run cannot be resumed. */
export function storedCommand(metadata: Record<string, unknown> | null, directory: string): RunCommand {
  if (!metadata) throw new CorralError('CFG_ERR_INVALID', `--resume ${directory}: no metadata.json there, so it is not a corral eval run`);
  const command = metadata.command as RunCommand | undefined;
  if (!command || typeof command !== 'object' || typeof command.env !== 'string') {
    throw new CorralError(
      'RUNNER_ERR_RESUME_MISMATCH',
      `--resume ${directory}: metadata.json has no "command" (written by an older corral), so the run cannot be rebuilt; start a new run with --out`,
    );
  }
  return command;
}

const trimSlash = (url: string) => url.replace(/\/+$/, '');
const show = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

function stableJson(value: unknown): string {
  return JSON.stringify(value ?? null, (_key, inner: unknown) =>
    inner && typeof inner === 'object' && !Array.isArray(inner) ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => a.localeCompare(b))) : inner,
  );
}
