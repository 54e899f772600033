/**
 * An agent backed by any OpenAI-compatible chat-completions endpoint (vLLM, SGLang, OpenAI). Each turn it sends
 * the conversation and the environment's tools; tool calls run concurrently and their results go back in call
 * order; a reply without tool calls is the answer, or, when the environment answers turns, is followed by its
 * reply and the next turn. Token ids and logprobs are recorded when the server sends them.
 */
import { throwIfAborted } from '../../../core/abort.js';
import { CorralError } from '../../../core/errors.js';
import type { ToolInfo } from '../../contract/tool-access.js';
import type { ChatMessage } from '../../trajectory/messages.js';
import type { Agent, AgentRunInput } from '../agent.js';
import { requestChatCompletion, type ModelRequestPolicy } from './chat-completion-request.js';
import { type ModelTurn, readChatCompletion } from './chat-completion-response.js';
import { TokenInPrompt } from './token-in-prompt.js';
import { readTextCompletion } from './text-completion-response.js';
import { executeToolCalls } from '../execute-tool-calls.js';
import { ModelHttpClient } from './model-http-client.js';
import { agentPromptMessages } from '../prompt-messages.js';
import { answerWithoutReasoning } from './reasoning-text.js';

/**
 * Sent as top-level request fields. Anything beyond the named ones is passed through untouched, e.g. vLLM's
 * `logprobs: true`, `return_token_ids: true`, `top_k`, `chat_template_kwargs`.
 */
export interface SamplingArgs {
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  /** Sent as given to every rollout. Without it, a run-level seed becomes seed + rolloutIndex per rollout. */
  seed?: number;
  [field: string]: unknown;
}

export interface OpenAIAgentOptions {
  model: string;
  /** e.g. http://127.0.0.1:8000/v1 for vLLM. Default: OPENAI_BASE_URL, else https://api.openai.com/v1. */
  baseURL?: string;
  /** Default: OPENAI_API_KEY, else 'EMPTY' (vLLM and SGLang accept any key unless started with --api-key). */
  apiKey?: string;
  samplingArgs?: SamplingArgs;
  /** Retries per request after the first attempt, for 429, 408, 5xx, connection errors and timeouts. Default 4. */
  maxRetries?: number;
  /** Per attempt, request sent to last byte received. Default 600_000 (long generations are normal). */
  requestTimeoutMs?: number;
  /** First retry waits about this long (equal jitter), doubling per retry. Default 500. */
  backoffBaseMs?: number;
  /** Ceiling of the doubling. Default 8_000. Retry-After from the server is honoured up to 60 s. */
  backoffMaxMs?: number;
  /**
   * Ask for token ids and logprobs (vLLM's `logprobs: true` and `return_token_ids: true`) unless samplingArgs sets
   * those fields itself. Default false: OpenAI and some servers refuse return_token_ids. Runs that feed training
   * turn it on (the rollout API, `corral eval --samples` / `--return-tokens`).
   */
  returnTokens?: boolean;
  /**
   * Token in, tokens out (vLLM): each turn renders only the new messages to ids with POST /tokenize and samples with
   * POST /v1/completions from the previous prompt + completion ids + those, so history is never re-tokenised and a
   * rollout is one training sample whatever the chat template does to history. Implies returnTokens.
   */
  tokenIn?: boolean;
  /** How requests reach baseURL. Default: a keep-alive pool of this agent's own; the rollout API shares one guarded by its endpoint policy. */
  httpClient?: ModelHttpClient;
}

/** The backoff between model request attempts; corral eval's preflight retries GET /models with it too. */
export const MODEL_BACKOFF = Object.freeze({ baseMs: 500, maxMs: 8_000 });

/** Fields the agent owns: letting samplingArgs override them would desynchronise what is sent from what is recorded. */
const RESERVED_FIELDS = ['model', 'messages', 'tools', 'stream', 'n'];

/** vLLM's spelling for "send the sampled token ids, the prompt's token ids and a logprob per sampled token". */
export const TOKEN_FIELDS = Object.freeze({ logprobs: true, return_token_ids: true });

export class OpenAIAgent implements Agent {
  readonly name = 'openai';
  readonly takesEnvironmentReplies = true;
  readonly model: string;
  readonly samplingArgs: Readonly<SamplingArgs>;
  /** Where requests go: `${baseURL}/chat/completions`. */
  readonly baseURL: string;
  private readonly apiKey: string;
  private readonly client: ModelHttpClient;
  private readonly policy: ModelRequestPolicy;
  private readonly tokenIn: boolean;

  constructor(options: OpenAIAgentOptions) {
    const samplingArgs = { ...(options.samplingArgs ?? {}) };
    const reserved = RESERVED_FIELDS.filter((field) => field in samplingArgs);
    if (reserved.length > 0)
      throw new CorralError('CFG_ERR_INVALID', `sampling args (--sampling) may not set ${reserved.join(', ')}: the openai agent sets them itself`);
    const maxRetries = options.maxRetries ?? 4;
    const requestTimeoutMs = options.requestTimeoutMs ?? 600_000;
    if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new CorralError('CFG_ERR_INVALID', `maxRetries must be a whole number >= 0, got ${maxRetries}`);
    if (!(requestTimeoutMs > 0)) throw new CorralError('CFG_ERR_INVALID', `requestTimeoutMs must be > 0, got ${requestTimeoutMs}`);
    this.model = options.model;
    // Asked for below the caller's own sampling args: an explicit `logprobs: false` wins.
    this.tokenIn = options.tokenIn === true;
    this.samplingArgs = Object.freeze(options.returnTokens || this.tokenIn ? { ...TOKEN_FIELDS, ...samplingArgs } : samplingArgs);
    this.policy = {
      maxRetries,
      requestTimeoutMs,
      backoff: { baseMs: options.backoffBaseMs ?? MODEL_BACKOFF.baseMs, maxMs: options.backoffMaxMs ?? MODEL_BACKOFF.maxMs },
    };
    this.baseURL = (options.baseURL ?? process.env['OPENAI_BASE_URL'] ?? 'https://api.openai.com/v1').replace(/\/+$/, '');
    this.apiKey = options.apiKey || process.env['OPENAI_API_KEY'] || 'EMPTY';
    this.client = options.httpClient ?? new ModelHttpClient();
  }

  async run(input: AgentRunInput): Promise<void> {
    const { recorder, abortSignal } = input;
    const conversation = agentPromptMessages(input.systemPrompt, input.example);
    const tools = input.tools.tools.map(functionTool);
    const tokenIn = this.tokenIn
      ? new TokenInPrompt(this.client, { policy: this.policy, model: this.model, baseURL: this.baseURL, apiKey: this.apiKey, abortSignal }, tools)
      : undefined;
    for (let step = 0; step < input.maxTurns; step++) {
      throwIfAborted(abortSignal);
      const turn = recorder.startTurn();
      const startedAt = performance.now();
      const request = { policy: this.policy, model: this.model, baseURL: this.baseURL, apiKey: this.apiKey, abortSignal };
      let modelTurn: ModelTurn;
      if (tokenIn) {
        const promptIds = await tokenIn.next(conversation);
        const body = { ...this.requestBody(conversation, tools, input, 'tokens'), prompt: promptIds };
        modelTurn = readTextCompletion(await requestChatCompletion(this.client, body, { ...request, path: '/completions' }), turn, promptIds);
        tokenIn.remember(promptIds, modelTurn.tokens!.completion_token_ids!, conversation.length + 1);
      } else {
        modelTurn = readChatCompletion(await requestChatCompletion(this.client, this.requestBody(conversation, tools, input), request), turn);
      }
      recorder.event({ type: 'model-response', turn, durationMs: performance.now() - startedAt });
      // An entry even without token data: a turn the server sent no ids for must show, or samples would skip it.
      recorder.tokens({ turn, ...modelTurn.tokens });
      if (modelTurn.usage) recorder.usage(modelTurn.usage);
      // The trajectory keeps the reasoning; the conversation sent back omits it (DeepSeek refuses it, others ignore it).
      recorder.message(modelTurn.message);
      const { reasoning_content: _reasoning, ...resent } = modelTurn.message;
      conversation.push(resent);
      // A reply cut at the token limit ends the rollout, as in verifiers: its tool calls may be cut too.
      if (modelTurn.truncated) recorder.truncated();
      if (modelTurn.toolCalls.length === 0 || modelTurn.truncated) {
        recorder.answer(answerWithoutReasoning(modelTurn.message.content ?? ''));
        if (modelTurn.truncated || !input.environmentReply) return;
        // An environment that answers turns: its reply is the next user turn, unless it ended the episode.
        const reply = await input.environmentReply();
        if (reply.done) return;
        conversation.push(...reply.messages);
        continue;
      }
      const toolMessages = await executeToolCalls({ recorder, tools: input.tools, calls: modelTurn.toolCalls, turn, abortSignal });
      conversation.push(...toolMessages);
      if (input.shouldStop?.()) return;
    }
    // maxTurns reached without an answer: the runner records the episode as 'max-turns'.
  }

  private requestBody(
    conversation: ChatMessage[],
    tools: OpenAIFunctionTool[],
    input: AgentRunInput,
    prompt: 'messages' | 'tokens' = 'messages',
  ): Record<string, unknown> {
    const body: Record<string, unknown> = { ...this.samplingArgs, model: this.model };
    if (prompt === 'tokens') {
      // /v1/completions takes logprobs as a count of alternatives; 1 returns the sampled token's logprob.
      if (body['logprobs'] === true) body['logprobs'] = 1;
    } else {
      body['messages'] = conversation;
      // Some servers reject an empty tools array, so a tool-less environment sends none.
      if (tools.length > 0) body['tools'] = tools;
    }
    // Distinct seeds per rollout of a group, or GRPO would sample the same completion n times.
    if (this.samplingArgs.seed === undefined && input.seed !== undefined) body['seed'] = input.seed + input.rolloutIndex;
    return body;
  }
}

interface OpenAIFunctionTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

function functionTool(tool: ToolInfo): OpenAIFunctionTool {
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.inputSchema } };
}
