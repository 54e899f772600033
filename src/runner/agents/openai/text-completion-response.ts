/**
 * Reads a /v1/completions body (token-in mode) into the same ModelTurn a chat completion gives: the text parsed
 * into an assistant message (completion-text.ts), the prompt ids that were sent, and vLLM's choices[0].token_ids
 * and logprobs.token_logprobs. Token-in cannot go on without the sampled ids, so their absence is an error.
 */
import { CorralError } from '../../../core/errors.js';
import type { TokenUsage, TurnTokens } from '../../trajectory/messages.js';
import type { ModelTurn } from './chat-completion-response.js';
import { assistantFromCompletionText } from './completion-text.js';

export function readTextCompletion(body: unknown, turn: number, promptIds: readonly number[]): ModelTurn & { tokens: TurnTokens } {
  const completion = body as { choices?: unknown; usage?: unknown } | null;
  const choice = (Array.isArray(completion?.choices) ? completion.choices[0] : undefined) as Record<string, unknown> | undefined;
  if (!choice || typeof choice['text'] !== 'string')
    throw new CorralError('MODEL_ERR_BAD_RESPONSE', 'token-in: /v1/completions sent something that is not a completion (no choices[0].text)', {
      details: { status: 200 },
    });
  const ids = choice['token_ids'];
  if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'number'))
    throw new CorralError('MODEL_ERR_TOKEN_IN', 'token-in: /v1/completions sent no choices[0].token_ids (vLLM sends them with return_token_ids: true)');
  const { message, toolCalls } = assistantFromCompletionText(choice['text'], turn);
  const finishReason = typeof choice['finish_reason'] === 'string' ? choice['finish_reason'] : null;
  const logprobs = (choice['logprobs'] as { token_logprobs?: unknown } | null | undefined)?.token_logprobs;
  const tokens: TurnTokens = { prompt_token_ids: [...promptIds], completion_token_ids: ids as number[] };
  if (Array.isArray(logprobs) && logprobs.every((value) => typeof value === 'number')) tokens.completion_logprobs = logprobs as number[];
  return { message, toolCalls, finishReason, truncated: finishReason === 'length', usage: usageOf(completion?.usage), tokens };
}

function usageOf(value: unknown): TokenUsage | null {
  const usage = value as { prompt_tokens?: unknown; completion_tokens?: unknown } | undefined;
  return typeof usage?.prompt_tokens === 'number' && typeof usage.completion_tokens === 'number'
    ? { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens }
    : null;
}
