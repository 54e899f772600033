/**
 * Token in, tokens out: the prompt of each turn is the previous turn's prompt + sampled completion ids, exactly as
 * they were, followed by only the new messages rendered to ids. The new part comes from vLLM's POST /tokenize
 * (beside /v1, with the chat template): the whole conversation with the generation prompt, minus the render of the
 * conversation up to the last assistant message. What the template puts after an assistant's end-of-turn token
 * (Qwen's "\n" after <|im_end|>) is kept from that render too. History is never re-tokenised, so a template that
 * rewrites earlier turns (dropping <think>) cannot split the rollout into several samples.
 */
import { CorralError } from '../../../core/errors.js';
import type { ChatMessage } from '../../trajectory/messages.js';
import type { ModelHttpClient } from './model-http-client.js';
import { type ModelRequestOptions, requestChatCompletion } from './chat-completion-request.js';

/** How far from the end of a rendered assistant message its end-of-turn token may sit. */
const END_OF_TURN_WINDOW = 8;

export class TokenInPrompt {
  /** The last turn's prompt + completion ids, and how many conversation messages they cover. */
  private previous: { ids: number[]; messages: number } | undefined;

  constructor(
    private readonly client: ModelHttpClient,
    private readonly request: Omit<ModelRequestOptions, 'path'>,
    private readonly tools: readonly unknown[],
  ) {}

  /** The prompt ids for the next completion of `conversation`. */
  async next(conversation: readonly ChatMessage[]): Promise<number[]> {
    const whole = await this.tokenize(conversation, true);
    const previous = this.previous;
    if (!previous) return whole;
    const history = await this.tokenize(conversation.slice(0, previous.messages), false);
    if (!startsWith(whole, history))
      throw new CorralError(
        'MODEL_ERR_TOKEN_IN',
        `token-in: the chat template renders this conversation so that its first ${previous.messages} messages are not a prefix of the whole; corral would have to re-tokenise history (run without --token-in)`,
      );
    const endOfTurn = previous.ids.at(-1);
    const end = endOfTurn === undefined ? -1 : history.lastIndexOf(endOfTurn);
    const afterEndOfTurn = end >= 0 && history.length - end <= END_OF_TURN_WINDOW ? history.slice(end + 1) : [];
    return [...previous.ids, ...afterEndOfTurn, ...whole.slice(history.length)];
  }

  /** After a turn: its prompt and sampled ids, and the conversation length including the assistant message. */
  remember(promptIds: readonly number[], completionIds: readonly number[], messages: number): void {
    this.previous = { ids: [...promptIds, ...completionIds], messages };
  }

  private async tokenize(messages: readonly ChatMessage[], addGenerationPrompt: boolean): Promise<number[]> {
    const body = { model: this.request.model, messages, add_generation_prompt: addGenerationPrompt, ...(this.tools.length > 0 ? { tools: this.tools } : {}) };
    // vLLM serves /tokenize at the root, beside /v1.
    const root = this.request.baseURL.replace(/\/+$/, '').replace(/\/v1$/, '');
    const reply = (await requestChatCompletion(this.client, body, { ...this.request, baseURL: root, path: '/tokenize' })) as { tokens?: unknown };
    const tokens = reply?.tokens;
    if (!Array.isArray(tokens) || !tokens.every((id) => typeof id === 'number'))
      throw new CorralError('MODEL_ERR_TOKEN_IN', `token-in: ${root}/tokenize did not answer {tokens: [...]} (is this a vLLM server?)`);
    return tokens as number[];
  }
}

function startsWith(whole: readonly number[], head: readonly number[]): boolean {
  if (head.length > whole.length) return false;
  for (let index = 0; index < head.length; index++) if (whole[index] !== head[index]) return false;
  return true;
}
