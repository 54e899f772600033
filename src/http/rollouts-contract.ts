/**
 * The rollout API's contract: the request a trainer sends to POST /v1/rollouts (one strict zod schema, in the
 * snake_case it has on the wire) and the RolloutService the CLI hands to buildServer. http/ may not import
 * runner/, so records cross this seam as opaque JSON objects: the route streams exactly what the service gives
 * it, which is what results.jsonl holds. docs/rollouts-api.md documents the wire format for clients.
 */
import { z } from 'zod';
import { SERIES_NAME_PATTERN } from '../viewer/series-steps.js';
import { POLICY_NAME_PATTERN, POLICY_NAME_RULE } from './rollouts-policy-steps.js';

const toolCallSchema = z
  .object({ id: z.string(), type: z.literal('function'), function: z.object({ name: z.string(), arguments: z.string() }).strict() })
  .strict();

/** The OpenAI chat-completions message shapes the runner records (src/runner/trajectory/messages.ts). */
export const messageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string() }).strict(),
  z.object({ role: z.literal('user'), content: z.string() }).strict(),
  z.object({ role: z.literal('assistant'), content: z.string().nullable(), tool_calls: z.array(toolCallSchema).optional() }).strict(),
  z.object({ role: z.literal('tool'), tool_call_id: z.string(), content: z.string() }).strict(),
]);

/** An example sent inline, in the shape environments' datasets produce (src/runner/env/environment.ts). */
export const exampleSchema = z
  .object({
    id: z.string().min(1),
    prompt: z.union([z.string(), z.array(messageSchema).min(1)]),
    answer: z.unknown().optional(),
    info: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

const modelSchema = z
  .object({
    /** An OpenAI-compatible endpoint, e.g. http://10.0.0.5:8000/v1 for vLLM. */
    base_url: z.string().url(),
    model: z.string().min(1),
    /** Sent as the bearer token to base_url. Default 'EMPTY' (never the server's own OPENAI_API_KEY). */
    api_key: z.string().optional(),
    /** Per request attempt. Default 600_000. */
    timeout_ms: z.number().int().positive().optional(),
    /** Retries per request for 429, 408, 5xx, connection errors and timeouts. Default 4. */
    max_retries: z.number().int().min(0).max(20).optional(),
  })
  .strict();

const SELECTORS = ['example_ids', 'examples', 'n'] as const;

export const rolloutRequestSchema = z
  .object({
    /**
     * A served environment: a built-in (wiki-search, python-code) or one named by `corral serve --env`. Paths are refused: a client
     * must not make the server import files.
     */
    env: z.string().min(1),
    /** The environment's arguments, validated by its argsSchema (as `corral eval --env-args` and episodes' env_args). */
    env_args: z.record(z.string(), z.unknown()).optional(),
    /** Dataset examples by id, in this order. */
    example_ids: z.array(z.string().min(1)).min(1).optional(),
    /** Examples sent inline instead of the environment's dataset. */
    examples: z.array(exampleSchema).min(1).optional(),
    /** The first n examples of the environment's dataset. */
    n: z.number().int().positive().optional(),
    /** Group size: GRPO-style group statistics are computed over these rollouts. */
    rollouts_per_example: z.number().int().min(1).max(1024).default(1),
    model: modelSchema,
    /** Top-level chat-completions fields (temperature, max_tokens, logprobs, ...); model, messages, tools, stream and n are refused. */
    sampling_args: z.record(z.string(), z.unknown()).optional(),
    /**
     * Rollouts of this request in flight at once (the server may cap it). Omitted: the server's admission control
     * decides, one level shared by every such request (docs/admission.md).
     */
    max_concurrency: z.number().int().min(1).max(4096).optional(),
    /** Overrides the environment's max turns. */
    max_turns: z.number().int().min(1).max(1000).optional(),
    /** Rollout i of a group gets seed + i, unless sampling_args.seed is set. */
    seed: z.number().int().optional(),
    /**
     * Adds `samples` (training samples: prompt_ids, completion_ids, completion_mask, completion_logprobs, reward,
     * advantage; docs/training.md) to every streamed record, and sample counts to the summary line.
     */
    samples: z.boolean().default(false),
    /** Asks the model server for token ids and logprobs (vLLM's logprobs + return_token_ids). Default true: a trainer needs them. */
    return_tokens: z.boolean().default(true),
    /**
     * Token in, tokens out (vLLM): each turn renders only the new messages with /tokenize and samples from
     * /v1/completions with token ids as the prompt, so history is never re-tokenised and every rollout is one sample.
     */
    token_in: z.boolean().default(false),
    /**
     * Live canaries: this share of the examples (0 < rate <= 1) first runs the environment's oracle and an empty
     * answer; an example whose oracle fails or whose empty answer scores is quarantined: a `{"type": "quarantine"}`
     * line on the stream, and its records carry `quarantine`. Canary rollouts are never streamed or counted.
     */
    canaries: z.number().gt(0).max(1).optional(),
    /** Keep this request's records as one step of a series (a trainer's reward curve) in the server's runs folder. */
    record: z
      .object({
        series: z.string().regex(SERIES_NAME_PATTERN, "letters, digits, '.', '_' and '-' (at most 128), starting with a letter or digit"),
        step: z.number().int().min(0),
      })
      .strict()
      .optional(),
    /**
     * The stale-work policy (docs/rollouts-api.md): an ISO 8601 time with an offset ("2026-12-03T16:20:00Z"). Rollouts
     * not streamed by then are cancelled (a `cancelled` line each, never a record); none starts after it.
     */
    deadline: z.iso.datetime({ offset: true, message: 'an ISO 8601 time with an offset, e.g. 2026-12-03T16:20:00Z' }).optional(),
    /** The trainer's policy step these rollouts are generated for; it also moves the clock of `policy` to at least this step. */
    policy_step: z.number().int().min(0).optional(),
    /**
     * Cancel the rollouts not yet streamed once the clock of `policy` is more than this many steps past `policy_step`
     * (prime-rl's max_off_policy_steps; 0: on the next step). Needs `policy_step`.
     */
    max_staleness: z.number().int().min(0).optional(),
    /** Whose step clock `policy_step` and `max_staleness` read: the trainer's run (default "default"), per principal. */
    policy: z.string().regex(POLICY_NAME_PATTERN, POLICY_NAME_RULE).optional(),
  })
  .strict()
  .superRefine((request, context) => {
    if (request.max_staleness !== undefined && request.policy_step === undefined)
      context.addIssue({ code: 'custom', path: ['max_staleness'], message: 'max_staleness needs policy_step (the step these rollouts are generated for)' });
    const given = SELECTORS.filter((field) => request[field] !== undefined);
    if (given.length !== 1) {
      const message = given.length === 0 ? 'send one of example_ids, examples or n' : `send only one of example_ids, examples or n (got ${given.join(', ')})`;
      context.addIssue({ code: 'custom', path: [given[1] ?? 'n'], message });
    }
    const ids = request.example_ids ?? request.examples?.map((example) => example.id) ?? [];
    const duplicate = ids.find((id, index) => ids.indexOf(id) !== index);
    if (duplicate !== undefined)
      context.addIssue({ code: 'custom', path: [request.example_ids ? 'example_ids' : 'examples'], message: `example id '${duplicate}' appears twice` });
  });

export type RolloutRequest = z.output<typeof rolloutRequestSchema>;

/** Aggregates over the records a run streamed, named as in metadata.json (avg_reward, avg_<metric>). */
export interface RolloutRunStats {
  rollouts: number;
  errored: number;
  /** Mean over rollouts that were scored; null when none was. */
  avg_reward: number | null;
  /** avg_<metric> for every rubric metric. */
  metric_averages: Record<string, number>;
  errors_by_code: Record<string, number>;
  /** With `samples: true`: counts over the sample builds (runner/samples/sample-tally.ts), as opaque JSON. */
  samples?: Record<string, unknown>;
  /** With `canaries`: how many examples were canaried and the ids quarantined. */
  canaries?: { canaried_examples: number; quarantined: string[] };
}

/** Why a request's rollouts can no longer make it: its deadline passed, or its policy step became too stale. */
export type CancelReason = 'deadline' | 'stale';

/** A request's stale-work policy as the service sees it (rollouts-expiry.ts makes it from the request). */
export interface RolloutExpiry {
  /** Fires (once) when the request's unfinished rollouts are to be cancelled. */
  readonly signal: AbortSignal;
  /** The reason, checked against the clock and the step now (firing the signal if the timer is late); undefined while they can make it. */
  check(): CancelReason | undefined;
  /** What every cancelled line says beside its reason: {deadline}, or {policy, policy_step, current_step, max_staleness}. */
  details(): Record<string, unknown>;
}

/**
 * A rollout of the request that was cancelled instead of streamed. `state`: `waiting` (never started), `running`
 * (aborted), `finished` (it finished, but its group did not before the cutoff: a group is streamed whole or not at all).
 */
export interface CancelledRollout {
  example_id: string;
  rollout_index: number;
  state: 'waiting' | 'running' | 'finished';
}

/** A validated request, ready to run: the environment is loaded and the examples are chosen. */
export interface PreparedRollouts {
  readonly env: string;
  readonly model: string;
  readonly numExamples: number;
  readonly rolloutsPerExample: number;
  /**
   * Runs every rollout, calling onGroup with each example's records (result records, as results.jsonl holds
   * them) when the whole group has finished. Never rejects for a failed rollout (that is a record with an
   * error); when abortSignal fires, in-flight rollouts are cancelled, their sandboxes released, and it resolves.
   */
  run(options: {
    abortSignal: AbortSignal;
    onGroup: (records: readonly Record<string, unknown>[]) => void;
    /** With `canaries`: a quarantined example (example_id, reasons, oracle_reward, floor_reward), as soon as its canaries finish. */
    onQuarantine?: (quarantine: Record<string, unknown>) => void;
    /**
     * With `deadline` or `max_staleness`: when expiry fires, rollouts not yet streamed are cancelled (never started,
     * aborted, or finished in a group that did not finish), and each is passed to onCancelled once the run is over.
     * Every planned rollout is then either one streamed record or one cancelled rollout.
     */
    expiry?: RolloutExpiry;
    onCancelled?: (rollouts: readonly CancelledRollout[]) => void;
  }): Promise<RolloutRunStats>;
}

export interface RolloutService {
  /**
   * Checks what the schema cannot (the environment exists, example ids exist, sampling args are allowed) and
   * loads the examples. A bad request throws a CorralError whose audience is 'caller' and whose details.field
   * names the request field; anything else is a server fault.
   */
  prepare(request: RolloutRequest, options: { abortSignal: AbortSignal; log?: RolloutLog }): Promise<PreparedRollouts>;
}

/** Where the service writes what must not reach the caller (a model endpoint's own error text): the request's logger. */
export interface RolloutLog {
  warn(details: Record<string, unknown>, message: string): void;
}
