/** Flags of `corral eval`, parsed by commander and checked once here with zod; messages name flags as typed. */
import { z } from 'zod';
import { CorralError } from '../../core/errors.js';

const evalOptionsSchema = z
  .object({
    agent: z.string().optional(),
    model: z.string().optional(),
    /** --model-for ROLE=MODEL, repeatable: per-role models in an environment with roles. */
    modelFor: z.array(z.string().regex(/^[a-z0-9][a-z0-9_-]*=.+$/, 'ROLE=MODEL, e.g. --model-for second=Qwen/Qwen3-8B')).optional(),
    baseUrl: z.string().url().optional(),
    apiKey: z.string().optional(),
    numExamples: z.coerce.number().int().min(-1).optional(),
    rolloutsPerExample: z.coerce.number().int().min(1).optional(),
    /** -c: `auto` (admission control, up to --max-concurrency) or a fixed number of rollouts in flight. */
    concurrency: z.union([z.literal('auto'), z.coerce.number().int().min(1)], { message: "'auto' or a whole number >= 1" }).default('auto'),
    /** The ceiling of -c auto. */
    maxConcurrency: z.coerce.number().int().min(1).default(256),
    out: z.string().optional(),
    resume: z.string().optional(),
    seed: z.coerce.number().int().optional(),
    corpus: z.array(z.string()).optional(),
    questions: z.string().optional(),
    dataset: z.string().optional(),
    sampling: z.string().optional(),
    /** JSON object validated by the environment's argsSchema (vf-eval's -a). */
    envArgs: z.string().optional(),
    maxTurns: z.coerce.number().int().min(1).optional(),
    backend: z.enum(['auto', 'docker', 'process']).optional(),
    dataDir: z.string().optional(),
    progress: z.boolean().default(true),
    /** Seconds between progress lines when stderr is not a terminal. */
    progressInterval: z.coerce.number().positive().default(5),
    preflight: z.boolean().default(true),
    maxErrors: z
      .string()
      .regex(/^(\d+|\d+(\.\d+)?%)$/, "a count (e.g. 10) or a percentage of the run's rollouts (e.g. 5%)")
      .optional(),
    /** Seconds per model request attempt. */
    modelTimeout: z.coerce.number().positive().default(600),
    /** Retries per model request after the first attempt. */
    modelRetries: z.coerce.number().int().min(0).default(4),
    /** --queue <redis-url>: rollouts run on `corral worker` processes through this Redis. */
    queue: z.string().optional(),
    /** Ask the model server for token ids and logprobs (vLLM's logprobs + return_token_ids). */
    returnTokens: z.boolean().default(false),
    /** Write <run>/samples.jsonl at the end (implies --return-tokens). */
    samples: z.boolean().default(false),
    /** Token-in mode: /tokenize the new messages, send token ids to /v1/completions (implies --return-tokens). */
    tokenIn: z.boolean().default(false),
    /** Live canaries: the share of examples (0 < RATE <= 1) that get an oracle and a floor rollout before their group. */
    canaries: z.coerce.number().gt(0, 'a share of the examples above 0 (e.g. 0.1), at most 1').max(1).optional(),
  })
  .passthrough();

export type EvalOptions = z.output<typeof evalOptionsSchema>;

/** `numExamples` -> `--num-examples`: what the user typed, never the internal key. */
export const flagName = (key: string) => `--${key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;

export function parseEvalOptions(raw: Record<string, unknown>): EvalOptions {
  const parsed = evalOptionsSchema.safeParse(raw);
  if (!parsed.success)
    throw new CorralError(
      'CFG_ERR_INVALID',
      `corral eval: ${parsed.error.issues.map((issue) => `${flagName(String(issue.path[0]))}: ${issue.message}`).join('; ')}`,
    );
  return parsed.data;
}

/** The most rollouts the run may hold at once: -c N, or --max-concurrency under -c auto. */
export function concurrencyCeiling(options: Pick<EvalOptions, 'concurrency' | 'maxConcurrency'>): number {
  return options.concurrency === 'auto' ? options.maxConcurrency : options.concurrency;
}

/** The run stops once more rollouts than this have errored (in this invocation). */
export function maxErrorsLimit(text: string | undefined, totalRollouts: number): number {
  if (text === undefined) return Number.POSITIVE_INFINITY;
  return text.endsWith('%') ? Math.floor((Number(text.slice(0, -1)) / 100) * totalRollouts) : Number(text);
}

export function parseSamplingArgs(text: string | undefined): Record<string, unknown> {
  if (!text) return {};
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new CorralError('CFG_ERR_INVALID', `--sampling must be a JSON object, e.g. '{"temperature":0.7,"max_tokens":512}'`);
}

/** `--env-args JSON`: an object, validated later by the environment's argsSchema. Absent: `{}`. */
export function parseEnvironmentArgs(text: string | undefined): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CorralError('ENV_ERR_INVALID_ARGS', `--env-args is not JSON (${(error as Error).message}); pass an object, e.g. '{"difficulty":"hard"}'`);
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  throw new CorralError('ENV_ERR_INVALID_ARGS', `--env-args must be a JSON object, e.g. '{"difficulty":"hard"}', got ${JSON.stringify(value)}`);
}

/** Sampling args with vLLM's token request added, under the user's own (an explicit `"logprobs": false` wins). */
export function withTokenRequest(
  samplingArgs: Record<string, unknown>,
  options: Pick<EvalOptions, 'returnTokens' | 'samples' | 'tokenIn'>,
): Record<string, unknown> {
  return options.returnTokens || options.samples || options.tokenIn ? { logprobs: true, return_token_ids: true, ...samplingArgs } : samplingArgs;
}

/** `--model-for ROLE=MODEL` flags as a role -> model map (the last one of a role wins). */
export function parseRoleModels(flags: readonly string[] | undefined): Record<string, string> {
  const models: Record<string, string> = {};
  for (const flag of flags ?? []) {
    const at = flag.indexOf('=');
    models[flag.slice(0, at)] = flag.slice(at + 1);
  }
  return models;
}
