/**
 * One HTTP request through the proxy: route, credential, body, translation to Chat Completions, the upstream
 * call, the record, and the answer in the CLI's dialect. A CLI that asks for one body gets one (upstream is asked
 * for one whole answer); a CLI that asks for a stream gets upstream's stream translated chunk by chunk as it
 * arrives (stream-sink.ts), and the call is recorded from the assembled whole, token ids and logprobs included.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ChatFunctionTool } from './chat-wire.js';
import type { Dialect, TranslatedRequest } from './dialect.js';
import { DIALECTS } from './dialects.js';
import type { ModelCall } from './model-call.js';
import { MODEL_CALL_VERSION } from './model-call.js';
import { presentedKey } from './proxy-credentials.js';
import { ProxyError } from './proxy-error.js';
import type { ProxyRollout } from './proxy-rollout.js';
import { errorDialectOf, matchRoute } from './proxy-routes.js';
import { readBodyBytes } from './request-body.js';
import { StreamSink } from './stream-sink.js';
import { allowedUpstreamRequest } from './upstream-allow-list.js';
import { upstreamBytes } from './upstream-body.js';
import type { UpstreamClient, UpstreamReply } from './upstream-client.js';

export interface ProxyHandlerOptions {
  upstream: UpstreamClient;
  /** Merged over every translated request: the operator's sampling wins over the CLI's. */
  forcedArgs: Readonly<Record<string, unknown>>;
  findRollout(key: string): ProxyRollout | undefined;
  maxBodyBytes: number;
  /** Per rollout; one more is answered 429 in the CLI's dialect. */
  maxCallsInFlight: number;
  /** A streamed call still waiting for upstream after this long gets its SSE headers and keep-alives. */
  streamHeadStartMs: number;
}

export type RequestHandler = (request: IncomingMessage, response: ServerResponse) => void;

/** `only`: a rollout's own listener answers that rollout's key alone. */
export function createProxyHandler(options: ProxyHandlerOptions, only?: ProxyRollout): RequestHandler {
  return (request, response) => {
    void handle(options, request, response, only).catch((error: unknown) => {
      const url = new URL(request.url ?? '/', 'http://proxy');
      const failure =
        error instanceof ProxyError ? error : new ProxyError(500, 'server', 'PROXY_ERR_INTERNAL', `the proxy failed: ${(error as Error).message}`);
      sendError(response, DIALECTS[errorDialectOf(url)], failure);
    });
  };
}

async function handle(options: ProxyHandlerOptions, request: IncomingMessage, response: ServerResponse, only: ProxyRollout | undefined): Promise<void> {
  const arrivedAt = performance.now();
  const startedAtMs = Date.now();
  const url = new URL(request.url ?? '/', 'http://proxy');
  const route = matchRoute(request.method ?? 'GET', url);
  if (!route) throw new ProxyError(404, 'not_found', 'PROXY_ERR_NOT_FOUND', `no route ${request.method} ${url.pathname}`);
  if (route.kind === 'probe') return sendJson(response, 200, {}, request.method === 'HEAD');

  const key = presentedKey(request.headers, url.searchParams);
  const rollout = key ? options.findRollout(key) : undefined;
  if (!rollout || (only && rollout !== only))
    throw new ProxyError(401, 'authentication', 'PROXY_ERR_UNAUTHORIZED', 'invalid x-api-key: the key is not a live rollout of this proxy');
  if (route.kind === 'models') {
    return sendJson(response, 200, { object: 'list', data: [{ id: options.upstream.model, object: 'model', created: 0, owned_by: 'corral' }] });
  }

  // Bounds what one sandbox can make the proxy hold: calls in flight, each body at most maxBodyBytes.
  if (rollout.callsInFlight >= options.maxCallsInFlight)
    throw new ProxyError(
      429,
      'rate_limit',
      'HTTP_ERR_QUOTA_EXCEEDED',
      `this rollout already has ${rollout.callsInFlight} model calls in flight, the proxy's limit`,
    );
  const limitError = rollout.limitError;
  if (limitError) throw limitError;
  rollout.callsInFlight++;
  let bodyBytes = 0;
  try {
    const bytes = await readBodyBytes(request, options.maxBodyBytes, rollout);
    bodyBytes = bytes.length;
    if (route.kind === 'count-tokens') {
      // An estimate (4 characters a token): the proxy has no tokenizer, and this count is never recorded as data.
      const estimate = Math.ceil(bytes.length / 4);
      return sendJson(response, 200, route.dialect === 'anthropic' ? { input_tokens: estimate } : { totalTokens: estimate });
    }

    const dialect = DIALECTS[route.dialect];
    // A body that is not JSON is refused before it becomes a call.
    const parsed = rollout.requestCache.read(bytes, dialect);
    const index = rollout.reserveIndex();
    const start = { id: nextAnswerId(), created: Math.floor(startedAtMs / 1000) };
    let translated: TranslatedRequest | null = null;
    let sent: Record<string, unknown> | null = null;
    let tools: readonly ChatFunctionTool[] = [];
    let reply: UpstreamReply | null = null;
    let upstreamMs = 0;
    let failure: ProxyError | null = null;
    const abort = new AbortController();
    const onClose = () => {
      if (!response.writableFinished) abort.abort();
    };
    response.once('close', onClose);
    let sink: StreamSink | null = null;
    try {
      translated = dialect.translateRequest(parsed.body, route.context, parsed.tools);
      translated.chat = allowedUpstreamRequest(translated.chat);
      tools = parsed.tools.tools;
      const shared = rollout.sharePrefix(translated.chat.messages);
      const { tools: _tools, messages, ...fields } = translated.chat;
      const messageParts = rollout.messageBytes.serialise(messages);
      // What this call adds to the records, counted against the rollout's limit before anything goes upstream.
      rollout.admit(byteLength(messageParts.slice(shared)), parsed.tools.tools, parsed.toolsJson?.length ?? 0);
      // A CLI that streams gets upstream's stream as it comes; usage then arrives in the last chunk.
      const streamOptions = translated.stream ? { stream_options: { include_usage: true } } : {};
      const upstreamFields = { ...fields, ...options.forcedArgs, model: options.upstream.model, stream: translated.stream, ...streamOptions };
      sent = { messages, ...upstreamFields };
      const upstreamBody = upstreamBytes(messageParts, upstreamFields, parsed.toolsJson);
      if (translated.stream) sink = new StreamSink(response, dialect, translated, start, route.context.query, options.streamHeadStartMs);
      const sentAt = performance.now();
      try {
        reply = sink ? await options.upstream.stream(upstreamBody, abort.signal, sink) : await options.upstream.complete(upstreamBody, abort.signal);
      } finally {
        upstreamMs = performance.now() - sentAt;
        sink?.stopHeadStart();
      }
    } catch (error) {
      failure = error instanceof ProxyError ? error : new ProxyError(500, 'server', 'PROXY_ERR_INTERNAL', `the proxy failed: ${(error as Error).message}`);
    } finally {
      response.off('close', onClose);
    }

    if (failure || !reply || !translated) {
      if (sink?.committed) sink.fail(failure!);
      else sendError(response, dialect, failure!);
    } else {
      rollout.addAnswerBytes(Buffer.byteLength(JSON.stringify(reply.turn.message)) + 8 * (reply.turn.tokens?.completion_token_ids?.length ?? 0));
      const answer = { body: reply.body, turn: reply.turn, ...start };
      if (sink) sink.finish(answer);
      else sendJson(response, 200, dialect.replyBody(answer, translated));
    }
    rollout.record(
      callRecord({ index, rollout, dialect, translated, sent, tools, reply, failure, startedAtMs, upstreamMs, durationMs: performance.now() - arrivedAt }),
    );
  } finally {
    rollout.callsInFlight--;
    rollout.give(bodyBytes);
  }
}

const byteLength = (parts: readonly Buffer[]) => parts.reduce((total, part) => total + part.length, 0);

function callRecord(parts: {
  index: number;
  rollout: ProxyRollout;
  dialect: Dialect;
  translated: TranslatedRequest | null;
  /** What went upstream, bar the tools. */
  sent: Record<string, unknown> | null;
  tools: readonly ChatFunctionTool[];
  reply: UpstreamReply | null;
  failure: ProxyError | null;
  startedAtMs: number;
  upstreamMs: number;
  durationMs: number;
}): ModelCall {
  const {
    messages = [],
    model: _model,
    stream: _stream,
    stream_options: _streamOptions,
    ...sampling
  } = (parts.sent ?? {}) as Record<string, unknown> & Pick<ModelCall['request'], 'messages'>;
  const turn = parts.reply?.turn ?? null;
  return {
    version: MODEL_CALL_VERSION,
    index: parts.index,
    rolloutId: parts.rollout.rolloutId,
    dialect: parts.dialect.name,
    stream: parts.translated?.stream ?? false,
    clientModel: parts.translated?.clientModel ?? '',
    startedAtMs: parts.startedAtMs,
    durationMs: round(parts.durationMs),
    upstreamMs: round(parts.upstreamMs),
    // The same array for every call that sent the same tool bytes (the rollout's tools cache), so records share it.
    request: { messages, tools: parts.tools as ChatFunctionTool[], sampling },
    response: turn?.message ?? null,
    finishReason: turn?.finishReason ?? null,
    usage: turn?.usage ?? null,
    tokens: turn?.tokens ?? null,
    error: parts.failure ? { code: parts.failure.code, status: parts.failure.status, message: parts.failure.message } : null,
  };
}

// Unique per process without a random draw per call: a random prefix once, then a counter.
const ANSWER_ID_PREFIX = randomBytes(6).toString('hex');
let answerCounter = 0;
const nextAnswerId = () => `${ANSWER_ID_PREFIX}${(answerCounter++).toString(36).padStart(6, '0')}`;

const round = (milliseconds: number) => Math.round(milliseconds * 1000) / 1000;

function sendJson(response: ServerResponse, status: number, body: unknown, headOnly = false): void {
  if (response.headersSent || response.destroyed) return;
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(headOnly ? undefined : text);
}

function sendError(response: ServerResponse, dialect: Dialect, error: ProxyError): void {
  sendJson(response, error.status, dialect.errorBody(error));
}
