/**
 * A real HTTP server speaking OpenAI chat-completions that answers from a script, so agents are tested over the
 * same wire as vLLM or OpenAI without a model. It records every request body, can fail with any HTTP status, stall
 * past a client's timeout, send a malformed body, and attach vLLM-style token data. A request with stream: true
 * gets the answer as vLLM streams it (see sendStream), token ids and logprobs spread over the chunks. It does no
 * per-request work beyond parsing and serialising JSON, so throughput benchmarks can put ~1000 rollouts on it.
 * With `template` (scripted-chat-template.ts) it tokenises like a real server: prompt ids from the conversation,
 * completion ids from the reply, sent when the request asks as vLLM is asked (return_token_ids, logprobs), and it
 * serves vLLM's token-in routes, POST /tokenize and POST /v1/completions with a token-id prompt.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatMessage } from '../runner/trajectory/messages.js';
import { type ScriptedTemplate, assistantText, completionIds, decodeConversation, renderConversation, scriptedLogprobs } from './scripted-chat-template.js';

/** vLLM's shapes: top-level prompt_token_ids, choices[0].token_ids, choices[0].logprobs.content[].logprob. */
export interface ReplyTokens {
  promptTokenIds?: number[];
  completionTokenIds?: number[];
  logprobs?: number[];
}

export interface ScriptedToolCall {
  /** Default: call_<callIndex>_<position>. */
  id?: string;
  name: string;
  /** A string is sent as is (so it can be malformed JSON); an object is serialised. */
  arguments: string | Record<string, unknown>;
}

/**
 * Every kind may wait `delayMs` first (cancelled if the client goes away), e.g. to outlast a client timeout.
 * `reasoning` is sent as message.reasoning_content, as vLLM's reasoning parsers and DeepSeek send it.
 * `omitTokens`: with a template, this reply carries no token data even when asked (a server that lost them).
 */
export type ModelReply = { delayMs?: number; omitTokens?: boolean } & (
  | ({ kind: 'tool-calls'; toolCalls: ScriptedToolCall[]; content?: string | null; tokens?: ReplyTokens; reasoning?: string } & StreamScript)
  | ({ kind: 'text'; content: string; finishReason?: string; tokens?: ReplyTokens; reasoning?: string } & StreamScript)
  /** `flat: true` answers as SGLang and older vLLM do: {object: 'error', message, type, code} instead of {error: {...}}. */
  | { kind: 'http-error'; status: number; message?: string; headers?: Record<string, string>; flat?: boolean }
  | { kind: 'malformed'; body: string; contentType?: string }
);

/** How a streamed reply behaves after its first delta chunk (ignored when the request did not ask for a stream). */
export interface StreamScript {
  /** The rest of the stream waits for this, e.g. until a test's client has seen the first delta. */
  holdAfterFirstDelta?: Promise<unknown>;
  /** Instead of the rest, an error event as vLLM sends one when generation fails midway; the stream then ends. */
  failAfterFirstDelta?: { message: string; code?: number };
}

export interface ChatCompletionRequestBody {
  model: string;
  messages: ChatMessage[];
  tools?: { type: 'function'; function: { name: string; description?: string; parameters?: Record<string, unknown> } }[];
  [field: string]: unknown;
}

export interface RecordedRequest {
  /** For /v1/completions, `messages` is the token-id prompt decoded by the template. */
  body: ChatCompletionRequestBody;
  /** Which route: chat (/v1/chat/completions), completions (/v1/completions) or tokenize (/tokenize). */
  route?: 'chat' | 'completions' | 'tokenize';
  headers: IncomingHttpHeaders;
  /** performance.now() when the request body had arrived. */
  receivedAtMs: number;
}

/** callIndex counts requests across the whole server (0, 1, ...), in arrival order. */
export type ModelScript = (request: ChatCompletionRequestBody, callIndex: number, load: ServerLoad) => ModelReply | Promise<ModelReply>;

/** Completion requests (chat and token-id) being answered now, this one included, e.g. to answer 429 above a level. */
export interface ServerLoad {
  readonly inFlight: number;
  readonly peakInFlight: number;
}

export interface ScriptedModelServer {
  /** Ends in /v1, as OpenAI-compatible clients expect. */
  baseURL: string;
  requests: RecordedRequest[];
  load: ServerLoad;
  close(): Promise<void>;
}

export interface ScriptedModelServerOptions {
  recordRequests?: boolean;
  /** Tokenise with this chat template (token ids on request, /tokenize and /v1/completions). */
  template?: ScriptedTemplate;
}

export async function startScriptedModelServer(script: ModelScript, options: ScriptedModelServerOptions = {}): Promise<ScriptedModelServer> {
  const recordRequests = options.recordRequests ?? true;
  const requests: RecordedRequest[] = [];
  const pendingTimers = new Set<NodeJS.Timeout>();
  let callIndex = 0;
  const load = { inFlight: 0, peakInFlight: 0 };
  /** Counts a completion request until its response closes (answered, or the client went away). */
  const countInFlight = (response: ServerResponse) => {
    load.inFlight++;
    load.peakInFlight = Math.max(load.peakInFlight, load.inFlight);
    response.once('close', () => load.inFlight--);
  };

  const server = createServer({ requestTimeout: 0, keepAliveTimeout: 65_000 }, (request, response) => {
    void handle(request, response).catch((error: unknown) =>
      sendJson(response, 500, { error: { message: `scripted model server: ${(error as Error).message}` } }),
    );
  });
  // Benchmarks hold ~1000 requests in flight on kept-alive connections: no per-socket request cap, a deep backlog.
  server.maxRequestsPerSocket = 0;
  server.headersTimeout = 60_000;

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const template = options.template;
    if (template && request.method === 'POST' && (request.url === '/tokenize' || request.url === '/v1/completions'))
      return handleTokenRoute(request, response, template);
    if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions'))
      return sendJson(response, 404, { error: { message: `no route ${request.method} ${request.url}` } });
    let body: ChatCompletionRequestBody;
    try {
      body = JSON.parse(await readBody(request)) as ChatCompletionRequestBody;
    } catch {
      return sendJson(response, 400, { error: { message: 'request body is not JSON' } });
    }
    const index = callIndex++;
    if (recordRequests) requests.push({ body, headers: request.headers, receivedAtMs: performance.now(), route: 'chat' });
    countInFlight(response);
    const scripted = await script(body, index, load);
    const reply = options.template ? withTemplateTokens(scripted, body, options.template) : scripted;
    if (reply.delayMs && !(await wait(reply.delayMs, response))) return;
    if (reply.kind === 'http-error') {
      const error = { message: reply.message ?? `scripted HTTP ${reply.status}`, type: 'scripted', code: reply.status };
      return sendJson(response, reply.status, reply.flat ? { object: 'error', ...error } : { error }, reply.headers);
    }
    if (reply.kind === 'malformed') {
      response.writeHead(200, { 'content-type': reply.contentType ?? 'application/json' });
      return void response.end(reply.body);
    }
    if (body['stream'] === true) return sendStream(response, body, completionBody(body, index, reply), reply);
    sendJson(response, 200, completionBody(body, index, reply));
  }

  /** vLLM's token-in routes: /tokenize renders a conversation to ids; /v1/completions samples after a token-id prompt. */
  async function handleTokenRoute(request: IncomingMessage, response: ServerResponse, template: ScriptedTemplate): Promise<void> {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(await readBody(request)) as Record<string, unknown>;
    } catch {
      return sendJson(response, 400, { error: { message: 'request body is not JSON' } });
    }
    if (request.url === '/tokenize') {
      if (recordRequests)
        requests.push({ body: body as ChatCompletionRequestBody, headers: request.headers, receivedAtMs: performance.now(), route: 'tokenize' });
      const tokens = renderConversation(body['messages'] as ChatMessage[], template, body['add_generation_prompt'] !== false);
      return sendJson(response, 200, { count: tokens.length, max_model_len: 32_768, tokens });
    }
    const prompt = body['prompt'];
    if (!Array.isArray(prompt) || !prompt.every((id) => typeof id === 'number'))
      return sendJson(response, 400, { error: { message: 'scripted /v1/completions takes a token-id prompt' } });
    const chatBody = { ...body, messages: decodeConversation(prompt as number[]) } as ChatCompletionRequestBody;
    const index = callIndex++;
    if (recordRequests) requests.push({ body: chatBody, headers: request.headers, receivedAtMs: performance.now(), route: 'completions' });
    countInFlight(response);
    const reply = await script(chatBody, index, load);
    if (reply.kind === 'http-error')
      return sendJson(response, reply.status, { error: { message: reply.message ?? `scripted HTTP ${reply.status}`, code: reply.status } });
    if (reply.kind === 'malformed') return void response.writeHead(200, { 'content-type': 'application/json' }).end(reply.body);
    const sampled = assistantText({
      content: reply.content ?? null,
      ...(reply.reasoning ? { reasoning: reply.reasoning } : {}),
      toolCalls: scriptedCalls(reply),
    });
    const ids = completionIds(sampled);
    const withTokens = !reply.omitTokens;
    const choice: Record<string, unknown> = { index: 0, text: sampled, finish_reason: reply.kind === 'text' ? (reply.finishReason ?? 'stop') : 'stop' };
    if (withTokens && body['return_token_ids']) Object.assign(choice, { token_ids: ids, prompt_token_ids: prompt });
    if (withTokens && body['logprobs'] !== undefined && body['logprobs'] !== null && body['logprobs'] !== false)
      choice['logprobs'] = { tokens: ids.map((id) => `t${id}`), token_logprobs: scriptedLogprobs(ids), top_logprobs: null, text_offset: [] };
    sendJson(response, 200, {
      id: `cmpl-${index}`,
      object: 'text_completion',
      created: Math.floor(Date.now() / 1000),
      model: body['model'],
      choices: [choice],
      usage: { prompt_tokens: prompt.length, completion_tokens: ids.length, total_tokens: prompt.length + ids.length },
    });
  }

  /** Resolves false when the client went away first (timeout, abort): then there is no one to answer. */
  function wait(ms: number, response: ServerResponse): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        pendingTimers.delete(timer);
        response.off('close', onClose);
        resolve(!response.destroyed);
      }, ms);
      const onClose = () => {
        clearTimeout(timer);
        pendingTimers.delete(timer);
        resolve(false);
      };
      pendingTimers.add(timer);
      response.once('close', onClose);
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0, backlog: 4096 }, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    load,
    async close() {
      for (const timer of pendingTimers) clearTimeout(timer);
      pendingTimers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function completionBody(
  request: ChatCompletionRequestBody,
  index: number,
  reply: Extract<ModelReply, { kind: 'tool-calls' | 'text' }>,
): Record<string, unknown> {
  const message: Record<string, unknown> =
    reply.kind === 'text'
      ? { role: 'assistant', content: reply.content }
      : {
          role: 'assistant',
          content: reply.content ?? null,
          tool_calls: reply.toolCalls.map((call, position) => ({
            id: call.id ?? `call_${index}_${position}`,
            type: 'function',
            function: { name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments) },
          })),
        };
  if (reply.reasoning !== undefined) message['reasoning_content'] = reply.reasoning;
  const tokens = reply.tokens;
  const choice: Record<string, unknown> = { index: 0, message, finish_reason: reply.kind === 'text' ? (reply.finishReason ?? 'stop') : 'tool_calls' };
  if (tokens?.logprobs)
    choice['logprobs'] = { content: tokens.logprobs.map((logprob, position) => ({ token: `t${position}`, logprob, bytes: null, top_logprobs: [] })) };
  if (tokens?.completionTokenIds) choice['token_ids'] = tokens.completionTokenIds;
  const completionTokens = tokens?.completionTokenIds?.length ?? 1;
  const promptTokens = tokens?.promptTokenIds?.length ?? request.messages.length;
  return {
    id: `chatcmpl-${index}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: request.model,
    choices: [choice],
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
    ...(tokens?.promptTokenIds ? { prompt_token_ids: tokens.promptTokenIds } : {}),
  };
}

/**
 * A completion as vLLM streams it: a role chunk (with prompt_token_ids), one chunk per delta (reasoning, each word
 * of the content, a tool call's id and name, then its arguments in two halves), each delta chunk carrying its share
 * of token_ids and logprobs, a finish chunk, a usage chunk when stream_options.include_usage asked, then [DONE].
 */
async function sendStream(response: ServerResponse, request: ChatCompletionRequestBody, whole: Record<string, unknown>, script: StreamScript): Promise<void> {
  const choice = (whole['choices'] as Record<string, unknown>[])[0]!;
  const message = choice['message'] as {
    content: string | null;
    reasoning_content?: string;
    tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  };
  const deltas: Record<string, unknown>[] = [];
  if (message.reasoning_content) deltas.push({ reasoning_content: message.reasoning_content });
  for (const word of message.content?.match(/\s*\S+\s*/g) ?? []) deltas.push({ content: word });
  (message.tool_calls ?? []).forEach((call, index) => {
    deltas.push({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] });
    const half = Math.ceil(call.function.arguments.length / 2);
    for (const part of [call.function.arguments.slice(0, half), call.function.arguments.slice(half)])
      if (part !== '') deltas.push({ tool_calls: [{ index, function: { arguments: part } }] });
  });
  const tokenIds = choice['token_ids'] as number[] | undefined;
  const logprobs = (choice['logprobs'] as { content: unknown[] } | undefined)?.content;
  const share = (items: unknown[] | undefined, position: number) => {
    if (!items) return undefined;
    const size = Math.ceil(items.length / Math.max(deltas.length, 1));
    return items.slice(position * size, (position + 1) * size);
  };
  const base = { id: whole['id'], object: 'chat.completion.chunk', created: whole['created'], model: whole['model'] };
  const write = (chunk: Record<string, unknown>) => response.write(`data: ${JSON.stringify({ ...base, ...chunk })}\n\n`);
  const choiceChunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    choices: [{ index: 0, delta, logprobs: null, finish_reason: null, ...extra }],
  });
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  write({ ...choiceChunk({ role: 'assistant', content: '' }), ...(whole['prompt_token_ids'] ? { prompt_token_ids: whole['prompt_token_ids'] } : {}) });
  for (const [position, delta] of deltas.entries()) {
    const ids = share(tokenIds, position);
    const entries = share(logprobs, position);
    write(choiceChunk(delta, { ...(entries ? { logprobs: { content: entries } } : {}), ...(ids ? { token_ids: ids } : {}) }));
    if (position > 0) continue;
    if (script.holdAfterFirstDelta) await script.holdAfterFirstDelta;
    if (script.failAfterFirstDelta) {
      const { message: said, code } = script.failAfterFirstDelta;
      response.write(`data: ${JSON.stringify({ error: { object: 'error', message: said, type: 'InternalServerError', code: code ?? 500 } })}\n\n`);
      return void response.end();
    }
  }
  // A reply with no delta at all still honours its script.
  if (deltas.length === 0 && script.holdAfterFirstDelta) await script.holdAfterFirstDelta;
  write(choiceChunk({}, { finish_reason: choice['finish_reason'] }));
  const streamOptions = request['stream_options'] as { include_usage?: boolean } | undefined;
  if (streamOptions?.include_usage) write({ choices: [], usage: whole['usage'] });
  response.end('data: [DONE]\n\n');
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (response.headersSent || response.destroyed) return;
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  response.end(text);
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/** A reply's tool calls with their arguments as the wire carries them (the string the template renders). */
function scriptedCalls(reply: Extract<ModelReply, { kind: 'tool-calls' | 'text' }>): { name: string; arguments: string }[] {
  if (reply.kind !== 'tool-calls') return [];
  return reply.toolCalls.map((call) => ({ name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments) }));
}

/** The reply with the template's token data, as much of it as the request asked for (vLLM sends none unasked). */
function withTemplateTokens(reply: ModelReply, request: ChatCompletionRequestBody, template: ScriptedTemplate): ModelReply {
  if ((reply.kind !== 'text' && reply.kind !== 'tool-calls') || reply.tokens || reply.omitTokens) return reply;
  const ids = completionIds(
    assistantText({ content: reply.content ?? null, ...(reply.reasoning ? { reasoning: reply.reasoning } : {}), toolCalls: scriptedCalls(reply) }),
  );
  const tokens: ReplyTokens = {};
  if (request['return_token_ids']) {
    tokens.promptTokenIds = renderConversation(request.messages, template, true);
    tokens.completionTokenIds = ids;
  }
  if (request['logprobs']) tokens.logprobs = scriptedLogprobs(ids);
  return { ...reply, tokens };
}
