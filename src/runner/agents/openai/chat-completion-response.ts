/**
 * Reads a chat-completions response body into the assistant message we record and send back, plus the token data
 * vLLM-style servers attach. Token ids and logprobs are copied exactly as returned: a trainer needs the sampled
 * tokens, and re-tokenising text does not give them back.
 */
import { CorralError } from '../../../core/errors.js';
import type { ChatMessage, TokenUsage, ToolCallRequest, TurnTokens } from '../../trajectory/messages.js';

export type AssistantMessage = Extract<ChatMessage, { role: 'assistant' }>;

export interface ModelTurn {
  message: AssistantMessage;
  /** The same array as message.tool_calls, empty when the model answered. */
  toolCalls: ToolCallRequest[];
  finishReason: string | null;
  /** finish_reason "length": the reply was cut at the token limit. */
  truncated: boolean;
  /** The endpoint's `usage`, when it sent one. */
  usage: TokenUsage | null;
  /** Null when the server sent no token ids or logprobs. */
  tokens: TurnTokens | null;
}

/** Throws MODEL_ERR_BAD_RESPONSE when the body is not a chat completion with choices[0].message. */
export function readChatCompletion(body: unknown, turn: number): ModelTurn {
  const completion = asRecord(body);
  const choice = asRecord(Array.isArray(completion?.['choices']) ? completion['choices'][0] : undefined);
  const message = asRecord(choice?.['message']);
  if (!completion || !choice || !message) {
    throw new CorralError('MODEL_ERR_BAD_RESPONSE', `model endpoint sent something that is not a chat completion: ${preview(body)}`, {
      details: { status: 200 },
    });
  }
  const rawCalls = Array.isArray(message['tool_calls']) ? message['tool_calls'] : [];
  const toolCalls = rawCalls.map((call, index) => toolCallRequest(call, turn, index));
  const content = typeof message['content'] === 'string' ? message['content'] : null;
  const assistant: AssistantMessage = toolCalls.length > 0 ? { role: 'assistant', content, tool_calls: toolCalls } : { role: 'assistant', content };
  // vLLM and DeepSeek send reasoning beside the content (reasoning_content; some servers call it reasoning).
  const reasoning = message['reasoning_content'] ?? message['reasoning'];
  if (typeof reasoning === 'string' && reasoning !== '') assistant.reasoning_content = reasoning;
  const finishReason = typeof choice['finish_reason'] === 'string' ? choice['finish_reason'] : null;
  return {
    message: assistant,
    toolCalls,
    finishReason,
    truncated: finishReason === 'length',
    usage: tokenUsage(completion['usage']),
    tokens: turnTokens(completion, choice),
  };
}

function toolCallRequest(value: unknown, turn: number, index: number): ToolCallRequest {
  const call = asRecord(value);
  const fn = asRecord(call?.['function']);
  const id = typeof call?.['id'] === 'string' && call['id'] !== '' ? call['id'] : `call_${turn}_${index}`;
  const name = typeof fn?.['name'] === 'string' ? fn['name'] : '';
  // Some servers send arguments as an object; the conversation carries them as a JSON string either way.
  const rawArguments = fn?.['arguments'];
  const args = typeof rawArguments === 'string' ? rawArguments : rawArguments === undefined ? '' : JSON.stringify(rawArguments);
  return { id, type: 'function', function: { name, arguments: args } };
}

/** vLLM: top-level prompt_token_ids and choices[0].token_ids (with return_token_ids), choices[0].logprobs.content[].logprob. */
function turnTokens(completion: Record<string, unknown>, choice: Record<string, unknown>): TurnTokens | null {
  const tokens: TurnTokens = {};
  const promptTokenIds = numbers(completion['prompt_token_ids']) ?? numbers(choice['prompt_token_ids']);
  const completionTokenIds = numbers(choice['token_ids']);
  const logprobContent = asRecord(choice['logprobs'])?.['content'];
  const completionLogprobs = Array.isArray(logprobContent) ? numbers(logprobContent.map((entry) => asRecord(entry)?.['logprob'])) : undefined;
  if (promptTokenIds) tokens.prompt_token_ids = promptTokenIds;
  if (completionTokenIds) tokens.completion_token_ids = completionTokenIds;
  if (completionLogprobs) tokens.completion_logprobs = completionLogprobs;
  return Object.keys(tokens).length > 0 ? tokens : null;
}

function tokenUsage(value: unknown): TokenUsage | null {
  const usage = asRecord(value);
  if (!usage || typeof usage['prompt_tokens'] !== 'number' || typeof usage['completion_tokens'] !== 'number') return null;
  const cached = asRecord(usage['prompt_tokens_details'])?.['cached_tokens'];
  return {
    prompt_tokens: usage['prompt_tokens'],
    completion_tokens: usage['completion_tokens'],
    ...(typeof cached === 'number' ? { cached_tokens: cached } : {}),
  };
}

function numbers(value: unknown): number[] | undefined {
  return Array.isArray(value) && value.every((item) => typeof item === 'number') ? (value as number[]) : undefined;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function preview(body: unknown): string {
  const text = typeof body === 'string' ? body : (JSON.stringify(body) ?? String(body));
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
