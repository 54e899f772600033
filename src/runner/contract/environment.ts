/**
 * An environment: tools (built-in toolsets and its own) + dataset + rubric + limits + system prompt, with
 * optional per-rollout state, setup/cleanup hooks, stop predicates, an answer parser and an argument schema.
 * Users write one as a module that default-exports `defineEnvironment({...})` (or defineEnvironmentFactory, see
 * environment-args.ts); `corral eval ./my-env.ts` loads it. docs/environments.md describes every field.
 */
import { z } from 'zod';
import type { Rubric } from '../rubrics/rubric.js';
import type { ChatMessage } from '../trajectory/messages.js';
import type { AnswerParser } from './answer-parser.js';
import type { EnvironmentReply, RespondContext } from './environment-reply.js';
import type { ToolDefinition } from './environment-tool.js';
import type { RolloutContext } from './rollout-context.js';
import type { StopPredicate } from './stop-predicate.js';

/** Sandbox choices of one example, merged over the environment's `sandbox` (example wins). */
export interface ExampleSandbox {
  /** A local Docker image (docker backend; the process backend has no images and refuses a different one). */
  image?: string;
  limits?: { memoryMiB?: number; cpus?: number; pidsLimit?: number; workspaceMiB?: number };
  network?: 'none' | 'egress';
  /** Environment variables for commands run in the sandbox. */
  env?: Record<string, string>;
}

export interface Example {
  /** Stable id: results and --resume key on (example id, rollout index). */
  id: string;
  /** The user turn, or a full message list. */
  prompt: string | ChatMessage[];
  /** Gold answer(s) for the rubric. */
  answer?: unknown;
  info?: Record<string, unknown>;
  sandbox?: ExampleSandbox;
}

/** Where a built-in dataset finds its files: the flags and the data directory. */
export interface DatasetLocation {
  /** Flags the user gave (`--corpus`, `--questions`, `--dataset`, ...), as strings. */
  args: Readonly<Record<string, string | string[] | undefined>>;
  dataDir: string | undefined;
}

export interface DatasetOptions<Args = Record<string, unknown>> extends DatasetLocation {
  /** The validated environment arguments (`--env-args`). */
  envArgs: Args;
}

/** A fixed list, or a stream without a fixed size (RL): `-n` takes the first n, pulled lazily. */
export type DatasetSource = readonly Example[] | Iterable<Example> | AsyncIterable<Example>;

export const SETUP_SCOPES = ['rollout', 'example'] as const;
/** Where setup runs: in each rollout's sandbox, or once per example with the group's rollouts forked from it. */
export type SetupScope = (typeof SETUP_SCOPES)[number];

export const TOOLSET_NAMES = ['wiki', 'python', 'shell', 'files', 'js'] as const;
export type ToolsetName = (typeof TOOLSET_NAMES)[number];

export interface EnvironmentLimits {
  /** Per tool call (default 60 s). */
  toolTimeoutMs: number;
  /** Whole rollout, setup, model, tools and scoring included (default 10 min). */
  rolloutTimeoutMs: number;
}

/**
 * What defineEnvironment takes. State is inferred from `state()`'s return type and Args from `argsSchema` (or both
 * are given as type parameters), and every place the environment's own code runs sees them typed: setup, cleanup,
 * rubric functions, stop predicates and tools. Rubric, stopWhen and tools are NoInfer: they are checked against
 * State, never widen it. Method syntax for the hooks on purpose: a typed environment still fits `Environment`.
 */
export interface EnvironmentInput<State = unknown, Args = unknown> {
  name: string;
  description?: string;
  /** Built-in toolsets served over MCP: wiki, python, shell, files, js. May be empty when `tools` are given. */
  toolsets?: readonly ToolsetName[];
  /** The environment's own tools (defineTool), served next to the toolsets' tools. */
  // NoInfer: State and Args come from state() and argsSchema; a tool typed loosely must not widen them to unknown.
  tools?: readonly ToolDefinition<z.ZodObject, NoInfer<State>, NoInfer<Args>>[];
  dataset(options: DatasetOptions<Args>): DatasetSource | Promise<DatasetSource>;
  /** Rubric functions see `state` as State; helpers written for any state (exactMatchRubric, ...) fit too. */
  rubric: Rubric<NoInfer<State>>;
  systemPrompt: string;
  maxTurns?: number;
  limits?: Partial<EnvironmentLimits>;
  /** Sandbox spec fields for every rollout (validated by the sandbox layer); an example's `sandbox` is merged over them. */
  sandbox?: Record<string, unknown>;
  /** Options for the environment's wiki toolset or others, free-form. */
  options?: Record<string, unknown>;
  /** Validates the environment arguments once per run (`corral eval --env-args JSON`); without it, env args are refused. */
  argsSchema?: z.ZodType<Args>;
  /** A fresh state object per rollout (default `{}`), seen by setup, tools, stop predicates, cleanup and the rubric. */
  state?(context: { example: Example; envArgs: Args }): State;
  /** Before the agent's first turn: write files, run commands, start a process. A throw errors the rollout (ENV_ERR_SETUP_FAILED). */
  setup?(context: RolloutContext<State, Args>): Promise<void> | void;
  /**
   * 'rollout' (default): setup runs in every rollout's own sandbox. 'example': setup runs once per example in one
   * sandbox, and each rollout of the group starts in a fork of it (its files, and a copy of the state after setup
   * (forkState, else structuredClone); processes started by setup do not carry over). Needs a backend that can fork (docker, process).
   */
  setupScope?: SetupScope;
  /**
   * A copy of `state` for a rollout that continues from it: an episode fork (POST /v1/episodes/<id>/fork) and
   * setupScope 'example'. Default: structuredClone(state). Define it when state holds what structuredClone cannot
   * copy (class instances whose methods matter, handles) or what the copies should share on purpose; the copy must not
   * share anything a tool mutates. Called once per copy; a throw refuses the fork (ENV_ERR_FORK_STATE_FAILED).
   */
  forkState?(state: State): State;
  /** After scoring, always (also after a failure or a cancel); the sandbox is released afterwards. */
  cleanup?(context: RolloutContext<State, Args>): Promise<void> | void;
  stopWhen?: StopPredicate<NoInfer<State>> | readonly StopPredicate<NoInfer<State>>[];
  /**
   * After each assistant turn that calls no tool: the environment's next user message(s), or `{ done: true }`. Without
   * it the episode ends at the first such turn. A throw errors the rollout as an environment failure (never reward 0).
   */
  respond?(context: RespondContext<State, Args>): Promise<EnvironmentReply> | EnvironmentReply;
  /**
   * Several agents in one rollout (docs/environments.md, "Several agents (roles)"): the roles take turns in this order,
   * sharing the state; respond turns what one role said into the next role's user message(s) (context.role, nextRole),
   * and the rubric scores each role (input.role). Needs `respond`. Absent: one agent, as always.
   */
  roles?: readonly string[];
  /** Reads the final answer (e.g. stripThinking(), lastCodeBlock('python')); default: the raw final text. */
  parser?: AnswerParser;
}

export interface Environment<State = unknown, Args = unknown> {
  readonly name: string;
  readonly description: string;
  readonly toolsets: readonly ToolsetName[];
  readonly tools: readonly ToolDefinition<z.ZodObject, State, Args>[];
  dataset(options: DatasetOptions<Args>): DatasetSource | Promise<DatasetSource>;
  readonly rubric: Rubric<State>;
  readonly systemPrompt: string;
  readonly maxTurns: number;
  readonly limits: Readonly<EnvironmentLimits>;
  readonly sandbox: Readonly<Record<string, unknown>>;
  readonly options: Readonly<Record<string, unknown>>;
  readonly argsSchema: z.ZodType<Args> | undefined;
  /**
   * The validated arguments this environment runs with: from bindEnvironmentArgs (environment-args.ts), else the
   * schema's defaults (`{}` without a schema). Undefined while a schema with required fields has none bound.
   */
  readonly envArgs: Args | undefined;
  state?(context: { example: Example; envArgs: Args }): State;
  setup?(context: RolloutContext<State, Args>): Promise<void> | void;
  readonly setupScope: SetupScope;
  forkState?(state: State): State;
  cleanup?(context: RolloutContext<State, Args>): Promise<void> | void;
  readonly stopWhen: readonly StopPredicate<State>[];
  respond?(context: RespondContext<State, Args>): Promise<EnvironmentReply> | EnvironmentReply;
  /** The roles in turn order, at least two distinct names; undefined for a single-agent environment. */
  readonly roles: readonly string[] | undefined;
  readonly parser: AnswerParser | undefined;
}

const isFunction = (value: unknown) => typeof value === 'function';
const optionalFunction = (what: string) => z.custom<(...args: never[]) => unknown>(isFunction, `${what} must be a function`).optional();

const limitsSchema = z
  .object({
    toolTimeoutMs: z.number().int().positive().default(60_000),
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
    toolsets: z.array(z.enum(TOOLSET_NAMES)).default([]),
    tools: z
      .array(
        z.custom<ToolDefinition>(
          (value) => typeof value === 'object' && value !== null && isFunction((value as { execute?: unknown }).execute),
          'a tool made with defineTool',
        ),
      )
      .default([]),
    dataset: z.custom<EnvironmentInput['dataset']>(isFunction, 'a function returning examples'),
    rubric: z.custom<Rubric>((value) => Array.isArray(value) && value.length > 0, 'a non-empty list of rubric functions'),
    systemPrompt: z.string(),
    maxTurns: z.number().int().positive().default(10),
    limits: limitsSchema.default(limitsSchema.parse({})),
    sandbox: z.record(z.string(), z.unknown()).default({}),
    options: z.record(z.string(), z.unknown()).default({}),
    argsSchema: z.custom<z.ZodType>((value) => value instanceof z.ZodType, 'a zod schema').optional(),
    state: optionalFunction('state'),
    setup: optionalFunction('setup'),
    setupScope: z.enum(SETUP_SCOPES).default('rollout'),
    forkState: optionalFunction('forkState'),
    cleanup: optionalFunction('cleanup'),
    respond: optionalFunction('respond'),
    stopWhen: z.union([z.custom<StopPredicate>(isFunction), z.array(z.custom<StopPredicate>(isFunction, 'a stop predicate (a function)'))]).optional(),
    parser: z
      .custom<AnswerParser>((value) => typeof value === 'object' && value !== null && isFunction((value as { parse?: unknown }).parse), 'an answer parser')
      .optional(),
    envArgs: z.unknown().optional(),
    roles: z
      .array(z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'role names are lowercase letters, digits, dashes and underscores'))
      .min(2, 'at least two roles')
      .refine((roles) => new Set(roles).size === roles.length, 'role names must differ')
      .optional(),
  })
  .strict()
  .refine((input) => input.roles === undefined || input.respond !== undefined, {
    message: 'an environment with roles needs respond: it passes what one role said to the next',
    path: ['roles'],
  });

export function defineEnvironment<State = unknown, Args = unknown>(input: EnvironmentInput<State, Args>): Environment<State, Args> {
  const parsed = environmentSchema.parse(input);
  const names = new Set<string>();
  for (const tool of parsed.tools) {
    if (names.has(tool.name)) throw new TypeError(`defineEnvironment(${parsed.name}): two tools are named ${tool.name}`);
    names.add(tool.name);
  }
  const stopWhen = parsed.stopWhen === undefined ? [] : Array.isArray(parsed.stopWhen) ? parsed.stopWhen : [parsed.stopWhen];
  const defaults =
    'envArgs' in parsed ? { success: true, data: parsed.envArgs } : parsed.argsSchema ? parsed.argsSchema.safeParse({}) : { success: true, data: {} };
  return Object.freeze({
    ...parsed,
    tools: Object.freeze([...parsed.tools]),
    toolsets: Object.freeze([...parsed.toolsets]),
    stopWhen: Object.freeze([...stopWhen]) as readonly StopPredicate<State>[],
    argsSchema: parsed.argsSchema as z.ZodType<Args> | undefined,
    parser: parsed.parser,
    roles: parsed.roles === undefined ? undefined : Object.freeze([...parsed.roles]),
    envArgs: (defaults.success ? defaults.data : undefined) as Args | undefined,
  }) as Environment<State, Args>;
}
