/**
 * An environment: toolsets + dataset + rubric + limits + system prompt. Users write one as a module that
 * default-exports `defineEnvironment({...})`; `corral eval ./my-env.ts` loads it.
 */
import { z } from 'zod';
import type { Rubric } from '../rubrics/rubric.js';
import type { ChatMessage } from '../trajectory/messages.js';

export interface Example {
  /** Stable id: results and --resume key on (example id, rollout index). */
  id: string;
  /** The user turn, or a full message list. */
  prompt: string | ChatMessage[];
  /** Gold answer(s) for the rubric. */
  answer?: unknown;
  info?: Record<string, unknown>;
}

export interface DatasetOptions {
  /** Flags the user gave (`--corpus`, `--questions`, `--dataset`, ...), as strings. */
  args: Readonly<Record<string, string | string[] | undefined>>;
  dataDir: string | undefined;
}

const limitsSchema = z
  .object({
    /** Per tool call. */
    toolTimeoutMs: z.number().int().positive().default(60_000),
    /** Whole rollout, model and tools included. */
    rolloutTimeoutMs: z
      .number()
      .int()
      .positive()
      .default(10 * 60_000),
  })
  .strict();

const environmentSchema = z
  .object({
    name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lowercase letters, digits and dashes'),
    description: z.string().default(''),
    /** Toolsets served to the agent over MCP: wiki, python, shell, files, js. */
    toolsets: z.array(z.enum(['wiki', 'python', 'shell', 'files', 'js'])).min(1),
    dataset: z.custom<(options: DatasetOptions) => Promise<Example[]> | Example[]>((value) => typeof value === 'function', 'a function returning examples'),
    rubric: z.custom<Rubric>((value) => Array.isArray(value) && value.length > 0, 'a non-empty list of rubric functions'),
    systemPrompt: z.string(),
    maxTurns: z.number().int().positive().default(10),
    limits: limitsSchema.default(limitsSchema.parse({})),
    /** Sandbox spec overrides for this environment (validated by the sandbox layer). */
    sandbox: z.record(z.string(), z.unknown()).default({}),
    /** Options for the environment's wiki toolset or others, free-form. */
    options: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();

export type EnvironmentInput = z.input<typeof environmentSchema>;
export type Environment = Readonly<z.output<typeof environmentSchema>>;

export function defineEnvironment(input: EnvironmentInput): Environment {
  return Object.freeze(environmentSchema.parse(input));
}
