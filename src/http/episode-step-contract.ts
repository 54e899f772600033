/**
 * Turn-by-turn driving of an episode (docs/episodes-api.md, "Step"): the trainer sends its model's assistant
 * message, corral runs the message's tool calls on the episode's sandbox and state, or asks the environment's
 * `respond` for the next user turn, and answers the messages to append, whether the episode is done and, once,
 * the reward. The body as a strict zod schema in its wire shape (OpenAI chat completions), and what a step answers.
 */
import { z } from 'zod';

const toolCallSchema = z
  .object({
    id: z.string().min(1),
    type: z.literal('function'),
    function: z
      .object({
        name: z.string().min(1),
        /**
         * What the model wrote: a JSON string (an object is accepted and serialised). Text that is not a JSON object is
         * the model's mistake: an isError tool result, as in `corral eval`.
         */
        arguments: z.union([z.string(), z.record(z.string(), z.unknown())]),
      })
      .strict(),
  })
  .strict();

/** An assistant message as chat completions return it; the fields the OpenAI SDK adds with no meaning here are accepted and dropped. */
const assistantMessageSchema = z
  .object({
    role: z.literal('assistant'),
    content: z.string().nullable().optional(),
    tool_calls: z.array(toolCallSchema).optional(),
    reasoning_content: z.string().optional(),
    /** What newer vLLM calls reasoning_content. */
    reasoning: z.string().optional(),
    refusal: z.string().nullable().optional(),
    annotations: z.array(z.unknown()).optional(),
    audio: z.null().optional(),
    function_call: z.null().optional(),
  })
  .strict()
  .superRefine((message, context) => {
    const calls = message.tool_calls ?? [];
    if (calls.length === 0 && typeof message.content !== 'string')
      context.addIssue({ code: 'custom', path: ['content'], message: 'an assistant message has text content, tool_calls, or both' });
    const seen = new Set<string>();
    calls.forEach((call, index) => {
      if (seen.has(call.id)) context.addIssue({ code: 'custom', path: ['tool_calls', index, 'id'], message: `tool call id ${call.id} is used twice` });
      seen.add(call.id);
    });
  });

const tokenIdsSchema = z.array(z.number().int().nonnegative());

/**
 * The turn's tokens as the trainer's inference server gave them (vLLM: the response's prompt_token_ids,
 * choices[0].token_ids and choices[0].logprobs.content[].logprob), kept on the episode's record so its training
 * samples (and its forks' samples) are built from exactly these ids, never re-tokenised.
 */
export const stepTokensSchema = z
  .object({
    /** The whole prompt of this model call as the server tokenised it (chat template applied). */
    prompt_token_ids: tokenIdsSchema,
    /** The sampled tokens of the message. */
    completion_token_ids: tokenIdsSchema,
    /** One logprob per sampled token. */
    completion_logprobs: z.array(z.number()).optional(),
  })
  .strict()
  .superRefine((tokens, context) => {
    if (tokens.completion_logprobs && tokens.completion_logprobs.length !== tokens.completion_token_ids.length)
      context.addIssue({ code: 'custom', path: ['completion_logprobs'], message: 'one logprob per completion token id' });
  });

export type StepTokens = z.output<typeof stepTokensSchema>;

export const stepEpisodeBodySchema = z
  .object({
    /** The model's turn: an assistant message, or its text alone (read as {role: 'assistant', content: text}). */
    message: z.preprocess((value) => (typeof value === 'string' ? { role: 'assistant', content: value } : value), assistantMessageSchema),
    /** The message's token ids and logprobs, for training samples (optional). */
    tokens: stepTokensSchema.optional(),
  })
  .strict();

export type StepEpisodeBody = z.output<typeof stepEpisodeBodySchema>;

/** Why an episode ended. */
export type EpisodeEndReason =
  /** A turn without tool calls in an environment without `respond`: the final answer. */
  | 'answered'
  /** The environment's `respond` ended it (`environmentReason` says why when it gave one); a rollout's record says the same. */
  | 'done'
  /** One of the environment's stop predicates held after the turn. */
  | 'stopped'
  /** The environment's maxTurns assistant turns were taken. */
  | 'max-turns';

/** What a step answers: the messages to append after the trainer's assistant message, in order. */
export interface EpisodeStepOutcome {
  /** Tool results (role tool, in the order of the message's tool_calls) or the environment's reply (role user or system). */
  messages: readonly Record<string, unknown>[];
  done: boolean;
  /** Only when done: the environment's rubric over the whole stepped conversation. */
  reward?: number;
  metrics?: Record<string, number>;
  /** Only when done: the final answer the environment's parser read (null when it found none). */
  answer?: string | null;
  reason?: EpisodeEndReason;
  /** The reason `respond` gave when it ended the episode. */
  environmentReason?: string | null;
}

/** An episode's conversation as stepped so far (the WebSocket `state`). */
export interface EpisodeConversationState {
  id: string;
  /** The prompt, then every message stepped: assistant turns, tool results, environment replies. */
  messages: readonly Record<string, unknown>[];
  /** Assistant turns taken. */
  turns: number;
  /** The token data stepped with each turn (`turn` names it); turns stepped without tokens have none. */
  tokens: readonly (StepTokens & { turn: number })[];
  /** The episode this one was forked from and its turns then (lineage of its record); null for an episode created fresh. */
  forkedFrom: { episode: string; turn: number } | null;
  done: boolean;
  reward: number | null;
  reason: EpisodeEndReason | 'errored' | null;
}
