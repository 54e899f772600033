/** Flags of `corral eval`, parsed by commander and checked once here with zod. */
import { z } from 'zod';
import { CorralError } from '../../core/errors.js';

const evalOptionsSchema = z
  .object({
    agent: z.string().optional(),
    model: z.string().optional(),
    baseUrl: z.string().url().optional(),
    apiKey: z.string().optional(),
    numExamples: z.coerce.number().int().min(-1).default(-1),
    rolloutsPerExample: z.coerce.number().int().min(1).default(1),
    concurrency: z.coerce.number().int().min(1).default(32),
    out: z.string().optional(),
    resume: z.string().optional(),
    seed: z.coerce.number().int().optional(),
    corpus: z.array(z.string()).optional(),
    questions: z.string().optional(),
    dataset: z.string().optional(),
    sampling: z.string().optional(),
    maxTurns: z.coerce.number().int().min(1).optional(),
    backend: z.enum(['auto', 'docker', 'process']).optional(),
    dataDir: z.string().optional(),
    progress: z.boolean().default(true),
  })
  .passthrough();

export type EvalOptions = z.output<typeof evalOptionsSchema>;

export function parseEvalOptions(raw: Record<string, unknown>): EvalOptions {
  const parsed = evalOptionsSchema.safeParse(raw);
  if (!parsed.success) throw new CorralError('CFG_ERR_INVALID', `corral eval: ${parsed.error.issues.map((issue) => `--${String(issue.path[0])}: ${issue.message}`).join('; ')}`);
  return parsed.data;
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
