/** Chat messages in the OpenAI chat-completions shape, the lingua franca of trainers and viewers. */
export interface ToolCallRequest {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  /** reasoning_content: the model's reasoning as the server sent it separately (vLLM, DeepSeek); kept, never resent. */
  | { role: 'assistant'; content: string | null; tool_calls?: ToolCallRequest[]; reasoning_content?: string }
  | { role: 'tool'; tool_call_id: string; content: string };

/** Token counts the endpoint reported (`usage`), summed over a rollout's model turns. */
export interface TokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
  /** prompt_tokens_details.cached_tokens, when the endpoint reports it. */
  cached_tokens?: number;
}

/**
 * Token data for one model turn, recorded exactly as the server returned it (never re-tokenised). snake_case like
 * the rest of the record; records written before the rename spelled these promptTokenIds, completionTokenIds and
 * completionLogprobs, which readTurnTokens (turn-tokens.ts) still accepts.
 */
export interface TurnTokens {
  /** The model turn (1-based) these tokens belong to. */
  turn?: number;
  /** The whole prompt of this call as the server tokenised it (chat template applied). */
  prompt_token_ids?: number[];
  /** The sampled tokens. */
  completion_token_ids?: number[];
  /** One logprob per sampled token, under the sampling distribution. */
  completion_logprobs?: number[];
}
