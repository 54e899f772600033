/**
 * The episode API's contract (docs/episodes-api.md): for trainers that run their own agent loop and need corral only
 * for the task, the tools and the reward. The request bodies as strict zod schemas in their wire shape, and the
 * EpisodeService the CLI hands to buildServer. http/ may not import runner/, so prompts, examples and completions
 * cross this seam as the wire JSON the schemas check; the service owns episodes, their sandboxes and hooks.
 */
import { z } from 'zod';
import type { EpisodeConversationState, EpisodeStepOutcome, StepEpisodeBody } from './episode-step-contract.js';
import { exampleSchema, messageSchema } from './rollouts-contract.js';

export const createEpisodeBodySchema = z
  .object({
    /** An environment this server serves (built-in or loaded by the operator with `corral serve --env`); never a path. */
    env: z.string().min(1),
    /** An example of the environment's dataset, by id. */
    example_id: z.string().min(1).optional(),
    /** An example sent inline: {id, prompt, answer?, info?}. */
    example: exampleSchema.optional(),
    /** The environment's arguments, validated by its argsSchema. */
    env_args: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
  .superRefine((body, context) => {
    if ((body.example_id === undefined) === (body.example === undefined))
      context.addIssue({ code: 'custom', path: [body.example ? 'example' : 'example_id'], message: 'send exactly one of example_id or example' });
  });

export type CreateEpisodeBody = z.output<typeof createEpisodeBodySchema>;

export const scoreEpisodeBodySchema = z
  .object({
    /** What the trainer's model produced after the prompt: the final text, or the whole message list (assistant and tool turns). */
    completion: z.union([z.string(), z.array(messageSchema).min(1)]),
  })
  .strict();

export type ScoreEpisodeBody = z.output<typeof scoreEpisodeBodySchema>;

/** POST /v1/episodes/<id>/fork: how many children, 1 to the server's cap (config server.maxEpisodeForks). */
export function forkEpisodeBodySchema(maxForks: number) {
  return z
    .object({
      n: z.number().int().min(1).max(maxForks, `at most ${maxForks} children per fork (server setting server.maxEpisodeForks)`),
    })
    .strict();
}

export type ForkEpisodeBody = z.output<ReturnType<typeof forkEpisodeBodySchema>>;

/** What a fork made: the children, in order, and the parent's turns when it was forked (each child's first turns). */
export interface EpisodeForkOutcome {
  turn: number;
  episodes: EpisodeDescription[];
}

/** A tool as OpenAI chat completions take it in `tools`, so a trainer passes the list straight to its model. */
export interface FunctionToolSpec {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** What POST /v1/episodes answers (before the route adds mcpUrl and the ISO expiresAt). */
export interface EpisodeDescription {
  id: string;
  env: string;
  exampleId: string;
  /** The messages to send the model first: the environment's system prompt and the example's prompt. */
  prompt: readonly Record<string, unknown>[];
  tools: readonly FunctionToolSpec[];
  /** When idle expiry releases the episode if nothing else happens (each call moves it). */
  expiresAtMs: number;
}

/** One tool call's result, as the model should read it: failures inside the tool are isError results, not HTTP errors. */
export interface EpisodeToolOutcome {
  text: string;
  structuredContent?: Record<string, unknown>;
  isError: boolean;
}

export interface EpisodeScore {
  reward: number;
  metrics: Record<string, number>;
  /** The final answer the environment's parser read from the completion (null when it found none). */
  answer: string | null;
}

export interface EpisodeCallOptions {
  principal: string;
  abortSignal: AbortSignal;
}

/**
 * Episodes by id, each owned by the principal that created it: another principal's id answers EPISODE_ERR_NOT_FOUND,
 * like one that never existed. Every method throws CorralErrors with stable codes: EPISODE_ERR_NOT_FOUND,
 * EPISODE_ERR_EXPIRED, ENV_ERR_NOT_SERVED and the caller's field errors (CFG_ERR_INVALID, details.field), or an
 * infrastructure error (sandbox, setup) the route answers with 5xx.
 */
export interface EpisodeService {
  /** Leases the sandbox when the environment needs one, runs the setup hook, and resolves once the episode is ready. */
  create(body: CreateEpisodeBody, options: EpisodeCallOptions): Promise<EpisodeDescription>;
  describe(id: string, principal: string): EpisodeDescription;
  /** Runs one of the episode's tools with plain JSON arguments, on the episode's sandbox and state. */
  callTool(id: string, name: string, args: Record<string, unknown>, options: EpisodeCallOptions): Promise<EpisodeToolOutcome>;
  /** The episode's MCP endpoint (Streamable HTTP, either protocol era), bound to the episode's sandbox and state. */
  handleMcp(id: string, request: Request, principal: string): Promise<Response>;
  /**
   * One turn of the trainer's model: runs the message's tool calls (or asks the environment's respond) and answers the
   * messages to append; done when the episode ends, with the reward over the stepped conversation. Throws
   * EPISODE_ERR_DONE, EPISODE_ERR_BUSY, EPISODE_ERR_UNKNOWN_TOOL (nothing ran), EPISODE_ERR_ALREADY_SCORED, or an
   * infrastructure error (sandbox, respond, rubric) that errors the episode.
   */
  step(id: string, body: StepEpisodeBody, options: EpisodeCallOptions): Promise<EpisodeStepOutcome>;
  /** The conversation stepped so far and whether it is done. */
  conversation(id: string, principal: string): EpisodeConversationState;
  /**
   * `n` new episodes of the same principal that continue this one from its current turn: each with a copy of its
   * sandbox's files (one snapshot), of its state (the environment's forkState, else structuredClone) and of its
   * conversation with the token ids stepped so far. The parent is unchanged. All or nothing. Throws
   * EPISODE_ERR_BUSY, EPISODE_ERR_DONE, EPISODE_ERR_ALREADY_SCORED, SBX_ERR_UNSUPPORTED (a sandbox it holds cannot
   * fork), ENV_ERR_FORK_STATE_FAILED, or an infrastructure error (sandbox, pool).
   */
  fork(id: string, body: ForkEpisodeBody, options: EpisodeCallOptions): Promise<EpisodeForkOutcome>;
  /**
   * The ended episode's result record (results.jsonl's layout; `lineage` on a fork's child) with its training
   * samples (`samples`, and `samples_missing`: why there are none). EPISODE_ERR_NOT_DONE before it ended.
   */
  record(id: string, principal: string): Record<string, unknown>;
  /**
   * The environment's rubric over the completion (after its answer parser), against the same sandbox; once per
   * episode. Refused (EPISODE_ERR_STEPPED) once the episode was stepped.
   */
  score(id: string, body: ScoreEpisodeBody, options: EpisodeCallOptions): Promise<EpisodeScore>;
  /** Runs the cleanup hook and releases the sandbox. */
  release(id: string, principal: string): Promise<void>;
  countOwnedBy(principal: string): number;
  /** Releases every episode (cleanup hooks included). Idempotent. */
  close(): Promise<void>;
}
