/**
 * `simulatedUser`: an environment's `respond` played by a second model, tau-bench style. The user model has its own
 * endpoint, key and sampling; it sees the conversation from the user's side (user-view.ts) and its system prompt
 * holds the example's hidden information (by default `example.info.user`: the account details the agent must ask
 * for). Its calls are returned as `userCalls`, which the runner keeps on the record apart from the agent's (never
 * trained on, their usage counted as `user_usage`). The user ends the conversation by writing the stop marker.
 */
import { z } from 'zod';
import { CorralError } from '../../core/errors.js';
import type { EnvironmentReply, RespondContext, UserModelCall } from '../contract/environment-reply.js';
import { requestChatCompletion, type ModelRequestOptions } from '../agents/openai/chat-completion-request.js';
import { ModelHttpClient } from '../agents/openai/model-http-client.js';
import { MODEL_BACKOFF } from '../agents/openai/openai-agent.js';
import { answerWithoutReasoning } from '../agents/openai/reasoning-text.js';
import type { ChatMessage, TokenUsage } from '../trajectory/messages.js';
import { userSideMessages } from './user-view.js';

export interface SimulatedUserOptions<State = Record<string, unknown>, Args = Record<string, unknown>> {
  /** The user model's name as its endpoint knows it. */
  model: string;
  /** Its OpenAI-compatible endpoint, e.g. http://127.0.0.1:8001/v1. Default: OPENAI_BASE_URL (required when unset). */
  baseUrl?: string;
  /** Default: OPENAI_API_KEY, else 'EMPTY'. */
  apiKey?: string;
  /** Who the user is and how to behave; the hidden information is appended. */
  systemPrompt: string;
  /** Request fields for the user's calls (temperature, max_tokens, seed, ...), independent of the agent's --sampling. */
  sampling?: Record<string, unknown>;
  /** What only the user knows, appended to its system prompt. Default: the example's info.user (JSON unless a string). */
  hiddenInfo?: (context: RespondContext<State, Args>) => string | undefined;
  /** The user writes this to end the conversation (default ###STOP###); the rollout ends 'done', reason 'user-stop'. */
  stopMarker?: string;
  /** Retries per call after the first, for 429, 408, 5xx, connection errors and timeouts (default 4). */
  maxRetries?: number;
  /** Per attempt (default 120 000). */
  requestTimeoutMs?: number;
}

const isFunction = (value: unknown) => typeof value === 'function';
/** Fields the simulated user sets itself. */
const RESERVED_FIELDS = ['model', 'messages', 'tools', 'stream', 'n'];

const optionsSchema = z
  .object({
    model: z.string().min(1),
    baseUrl: z.string().url().optional(),
    apiKey: z.string().optional(),
    systemPrompt: z.string(),
    sampling: z
      .record(z.string(), z.unknown())
      .refine((sampling) => RESERVED_FIELDS.every((field) => !(field in sampling)), `sampling may not set ${RESERVED_FIELDS.join(', ')}`)
      .default({}),
    hiddenInfo: z.custom<(context: RespondContext<unknown, unknown>) => string | undefined>(isFunction, 'a function').optional(),
    stopMarker: z.string().min(1).default('###STOP###'),
    maxRetries: z.number().int().min(0).default(4),
    requestTimeoutMs: z.number().int().positive().default(120_000),
  })
  .strict();

/** A respond for defineEnvironment. Throws CFG_ERR_INVALID for options that cannot work (checked once, here). */
export function simulatedUser<State = Record<string, unknown>, Args = Record<string, unknown>>(
  options: SimulatedUserOptions<State, Args>,
): (context: RespondContext<State, Args>) => Promise<EnvironmentReply> {
  const parsed = optionsSchema.safeParse(options);
  if (!parsed.success)
    throw new CorralError(
      'CFG_ERR_INVALID',
      `simulatedUser: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || '(options)'}: ${issue.message}`).join('; ')}`,
    );
  const settings = parsed.data;
  const baseUrl = settings.baseUrl ?? process.env['OPENAI_BASE_URL'];
  if (!baseUrl) throw new CorralError('CFG_ERR_INVALID', `simulatedUser(${settings.model}) needs baseUrl (or OPENAI_BASE_URL): its own endpoint`);
  const apiKey = settings.apiKey || process.env['OPENAI_API_KEY'] || 'EMPTY';
  const hiddenInfo = (settings.hiddenInfo as SimulatedUserOptions<State, Args>['hiddenInfo']) ?? defaultHiddenInfo;
  // One keep-alive pool for every rollout this environment runs.
  let client: ModelHttpClient | undefined;

  return async (context) => {
    const hidden = hiddenInfo(context);
    const messages: ChatMessage[] = [
      { role: 'system', content: hidden ? `${settings.systemPrompt}\n\n${hidden}` : settings.systemPrompt },
      ...userSideMessages(context.messages),
    ];
    const request: ModelRequestOptions = {
      policy: { maxRetries: settings.maxRetries, requestTimeoutMs: settings.requestTimeoutMs, backoff: MODEL_BACKOFF },
      model: settings.model,
      baseURL: baseUrl,
      apiKey,
      abortSignal: context.abortSignal,
    };
    const startedAt = performance.now();
    const body = await requestChatCompletion((client ??= new ModelHttpClient()), { ...settings.sampling, model: settings.model, messages }, request);
    const { content, usage } = readUserTurn(body, settings.model);
    const call: UserModelCall = { model: settings.model, content, usage, durationMs: Math.round((performance.now() - startedAt) * 1000) / 1000 };
    const said = answerWithoutReasoning(content);
    if (said.includes(settings.stopMarker)) return { done: true, reason: 'user-stop', userCalls: [call] };
    return { messages: said.trim(), userCalls: [call] };
  };
}

function defaultHiddenInfo(context: RespondContext<unknown, unknown>): string | undefined {
  const info = context.example.info?.['user'];
  if (info === undefined) return undefined;
  return typeof info === 'string' ? info : JSON.stringify(info, null, 2);
}

/** The user's text and usage; MODEL_ERR_BAD_RESPONSE when the body is no chat completion with text. */
function readUserTurn(body: unknown, model: string): { content: string; usage: TokenUsage | null } {
  const completion = body as { choices?: { message?: { content?: unknown } }[]; usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } };
  const content = completion?.choices?.[0]?.message?.content;
  if (typeof content !== 'string')
    throw new CorralError('MODEL_ERR_BAD_RESPONSE', `the simulated user's model ${model} sent no text: ${JSON.stringify(body).slice(0, 200)}`);
  const usage = completion.usage;
  const counted = typeof usage?.prompt_tokens === 'number' && typeof usage.completion_tokens === 'number';
  return { content, usage: counted ? { prompt_tokens: usage.prompt_tokens as number, completion_tokens: usage.completion_tokens as number } : null };
}
