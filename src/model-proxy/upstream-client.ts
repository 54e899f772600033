/**
 * The proxy's one way to the operator's OpenAI-compatible endpoint: one whole answer, or a stream read chunk by
 * chunk (stream: true with include_usage) whose deltas go to the CLI as they arrive. The body is sent as bytes the
 * proxy serialised itself (see upstream-body.ts). Failures are classified as the openai agent's request loop
 * classifies them (its error classes, a per-attempt timer, abortable backoff) and retried only before anything
 * reached the CLI; they become ProxyErrors whose words never name the upstream URL, because a CLI inside a sandbox
 * reads them.
 */
import { Agent, request } from 'undici';
import { throwIfAborted } from '../core/abort.js';
import { abortableDelay, backoffDelayMs, type BackoffPolicy } from '../core/backoff.js';
import { CorralError } from '../core/errors.js';
import { readChatCompletion, type ModelTurn } from '../runner/agents/openai/chat-completion-response.js';
import { classifyHttpFailure, classifyModelError, toModelError, type ModelAttemptFailure } from '../runner/agents/openai/model-error.js';
import { RETRY_AFTER_CAP_MS } from '../runner/agents/openai/retry-after.js';
import { ChunkAssembler } from './chunk-assembler.js';
import type { StreamDelta } from './dialect.js';
import { asRecord } from './json-values.js';
import { ProxyError, type ProxyErrorKind } from './proxy-error.js';
import { SseReader } from './sse-reader.js';
import { answerDeltas } from './stream-replay.js';

export interface UpstreamOptions {
  /** e.g. http://127.0.0.1:8000/v1; /chat/completions is appended. */
  baseURL: string;
  /** Sent as a bearer token upstream; never leaves the host. Default 'EMPTY'. */
  apiKey?: string;
  /** The model upstream serves; every call asks for it whatever name the CLI sent. */
  model: string;
  /** Per attempt, from sending the request to the last byte of the answer (streamed or not). Default 600_000. */
  requestTimeoutMs?: number;
  /** Retries after the first attempt for 429/408/5xx/connection/timeouts. Default 0: the CLI retries as it would against its vendor. */
  maxRetries?: number;
}

export interface UpstreamReply {
  /** A chat.completion body: upstream's own, or assembled from its stream. */
  body: Record<string, unknown>;
  turn: ModelTurn;
}

export interface StreamHandlers {
  /** Upstream's stream began (its first chunk is in): from here on a failure cannot be retried. */
  onStart(start: { upstreamId?: string; upstreamModel?: string }): void;
  onDelta(delta: StreamDelta): void;
}

type Attempt<T> = { value: T } | { failure: ModelAttemptFailure };

const KINDS: Partial<Record<string, ProxyErrorKind>> = {
  MODEL_ERR_CONTEXT_LENGTH: 'context_length',
  MODEL_ERR_RATE_LIMITED: 'rate_limit',
  MODEL_ERR_SERVER: 'server',
  MODEL_ERR_CONNECTION: 'overloaded',
  MODEL_ERR_TIMEOUT: 'timeout',
  MODEL_ERR_BAD_RESPONSE: 'server',
  MODEL_ERR_ENDPOINT_REFUSED: 'server',
};

const BACKOFF: BackoffPolicy = { baseMs: 500, maxMs: 8_000 };

export class UpstreamClient {
  private readonly dispatcher: Agent;
  private readonly url: URL;
  private readonly headers: Record<string, string>;
  private readonly maxRetries: number;
  private readonly requestTimeoutMs: number;

  constructor(private readonly options: UpstreamOptions) {
    // No undici timeouts: one timer per attempt covers headers and body together.
    this.dispatcher = new Agent({ headersTimeout: 0, bodyTimeout: 0, keepAliveTimeout: 30_000 });
    this.url = new URL(`${options.baseURL.replace(/\/+$/, '')}/chat/completions`);
    this.headers = { authorization: `Bearer ${options.apiKey || 'EMPTY'}`, 'content-type': 'application/json' };
    this.maxRetries = options.maxRetries ?? 0;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 600_000;
  }

  get model(): string {
    return this.options.model;
  }

  /** One whole answer. Throws ProxyError for every upstream failure (status kept when upstream sent one). */
  complete(body: Uint8Array, abortSignal: AbortSignal): Promise<UpstreamReply> {
    return this.withAttempts<UpstreamReply>(abortSignal, async (signal) => {
      const response = await this.post(body, 'application/json', signal);
      const text = await response.body.text();
      if (response.statusCode < 200 || response.statusCode >= 300)
        return { failure: classifyHttpFailure(response.statusCode, headersOf(response.headers), text) };
      const raw = JSON.parse(text) as Record<string, unknown>;
      return { value: { body: raw, turn: readChatCompletion(raw, 1) } };
    });
  }

  /**
   * A streamed answer: each delta is handed over as its chunk arrives; resolves with the assembled whole. A body
   * must ask for stream: true. An endpoint that answers with one JSON body anyway is read whole and replayed.
   */
  stream(body: Uint8Array, abortSignal: AbortSignal, handlers: StreamHandlers): Promise<UpstreamReply> {
    let started = false;
    const start = (upstream: { upstreamId?: string; upstreamModel?: string }) => {
      started = true;
      handlers.onStart(upstream);
    };
    return this.withAttempts<UpstreamReply>(
      abortSignal,
      async (signal) => {
        const response = await this.post(body, 'text/event-stream', signal);
        if (response.statusCode < 200 || response.statusCode >= 300)
          return { failure: classifyHttpFailure(response.statusCode, headersOf(response.headers), await response.body.text()) };
        if (!String(response.headers['content-type'] ?? '').includes('text/event-stream')) {
          const raw = JSON.parse(await response.body.text()) as Record<string, unknown>;
          const turn = readChatCompletion(raw, 1);
          start({
            upstreamId: typeof raw['id'] === 'string' ? raw['id'] : undefined,
            upstreamModel: typeof raw['model'] === 'string' ? raw['model'] : undefined,
          });
          for (const delta of answerDeltas(turn.message)) handlers.onDelta(delta);
          return { value: { body: raw, turn } };
        }
        const reader = new SseReader();
        const assembler = new ChunkAssembler();
        const read = (data: string): boolean => {
          if (data === '[DONE]') return false;
          const chunk = asRecord(JSON.parse(data));
          if (!chunk) throw new SyntaxError('an event of the stream is not a JSON object');
          const failure = streamedFailure(chunk, data);
          if (failure) throw failure;
          const deltas = assembler.push(chunk);
          if (!started) start({ upstreamId: assembler.upstreamId, upstreamModel: assembler.upstreamModel });
          for (const delta of deltas) handlers.onDelta(delta);
          return true;
        };
        let done = false;
        for await (const bytes of response.body) {
          for (const data of reader.push(bytes as Uint8Array)) if (!done && !read(data)) done = true;
          if (done) break;
        }
        if (!done) for (const data of reader.end()) if (!done && !read(data)) done = true;
        if (assembler.chunks === 0) throw new SyntaxError('the stream ended before its first chunk');
        const raw = assembler.body();
        return { value: { body: raw, turn: readChatCompletion(raw, 1) } };
      },
      () => started,
    );
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }

  private post(body: Uint8Array, accept: string, signal: AbortSignal) {
    return request(this.url, { method: 'POST', headers: { ...this.headers, accept }, body, signal, dispatcher: this.dispatcher });
  }

  /** Attempts until one answers or a failure may not be retried (nor once a stream has reached the CLI). */
  private async withAttempts<T>(abortSignal: AbortSignal, attempt: (signal: AbortSignal) => Promise<Attempt<T>>, committed = () => false): Promise<T> {
    try {
      for (let attempts = 1; ; attempts++) {
        throwIfAborted(abortSignal);
        const outcome = await this.timedAttempt(attempt, abortSignal);
        if ('value' in outcome) return outcome.value;
        const { failure } = outcome;
        if (!failure.retryable || attempts > this.maxRetries || committed())
          throw toModelError(failure, { attempts, model: this.options.model, baseURL: this.options.baseURL });
        const requested = Math.min(failure.retryAfterMs ?? 0, RETRY_AFTER_CAP_MS);
        await abortableDelay(Math.max(requested, backoffDelayMs(attempts - 1, BACKOFF)), abortSignal);
      }
    } catch (error) {
      throw this.proxyError(error);
    }
  }

  private async timedAttempt<T>(attempt: (signal: AbortSignal) => Promise<Attempt<T>>, abortSignal: AbortSignal): Promise<Attempt<T>> {
    // A controller per attempt, so the listener on the call's signal is removed after each attempt.
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.requestTimeoutMs);
    const onAbort = () => controller.abort(abortSignal.reason);
    abortSignal.addEventListener('abort', onAbort, { once: true });
    try {
      return await attempt(controller.signal);
    } catch (error) {
      if (abortSignal.aborted) throw new CorralError('ERR_ABORTED', 'model request was cancelled', { cause: abortSignal.reason });
      if (isAttemptFailure(error)) return { failure: error.failure };
      return { failure: classifyModelError(error, timedOut) };
    } finally {
      clearTimeout(timer);
      abortSignal.removeEventListener('abort', onAbort);
    }
  }

  private proxyError(error: unknown): ProxyError {
    if (error instanceof ProxyError) return error;
    if (!CorralError.isInstance(error)) return new ProxyError(502, 'server', 'MODEL_ERR_BAD_RESPONSE', 'upstream model endpoint failed');
    const status = typeof error.details['status'] === 'number' ? error.details['status'] : null;
    const kind: ProxyErrorKind = KINDS[error.code] ?? (status === 404 ? 'not_found' : status === 401 || status === 403 ? 'server' : 'invalid_request');
    const answerStatus = status ?? (error.code === 'MODEL_ERR_TIMEOUT' ? 504 : error.code === 'MODEL_ERR_BAD_RESPONSE' ? 502 : 503);
    // The upstream's own 401/403 is the operator's key problem, not the CLI's: it must not make a CLI re-authenticate.
    return new ProxyError(status === 401 || status === 403 ? 502 : answerStatus, kind, error.code, this.clientWords(error, status));
  }

  /**
   * What the CLI may read. A failure without an HTTP answer (socket errors, timeouts, a garbled body) gets our own
   * words, since its text names addresses; an HTTP answer keeps what the endpoint said (a context overflow must
   * reach the CLI), with the upstream's URL, host, port and key taken out.
   */
  private clientWords(error: CorralError, status: number | null): string {
    const withheld = WITHHELD[error.code];
    if (withheld || status === null) return `upstream model endpoint failed: ${withheld ?? 'no answer'}`;
    const prefix = `model ${this.options.model} at ${this.options.baseURL} failed`;
    let said = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : ` (HTTP ${status})`;
    const { host, hostname } = new URL(this.options.baseURL);
    // Some servers repeat the key they refused; the operator's key must not reach the sandbox that way either.
    const key = this.options.apiKey;
    if (key && key.length >= 4 && key !== 'EMPTY') said = withoutKey(said, key);
    for (const secret of [this.options.baseURL, host, hostname]) if (secret) said = said.split(secret).join('<upstream>');
    return `upstream model endpoint failed${said}`;
  }
}

/** The text with every copy of the key replaced, and a head of it cut off where the upstream's text was truncated. */
function withoutKey(text: string, key: string): string {
  const replaced = text.split(key).join('<upstream key>');
  for (let length = key.length - 1; length >= 4; length--) if (replaced.endsWith(key.slice(0, length))) return `${replaced.slice(0, -length)}<upstream key>`;
  return replaced;
}

/** An error event inside a 200 stream (vLLM sends `data: {"error": {...}}` when generation fails midway). */
class StreamedFailure extends Error {
  constructor(readonly failure: ModelAttemptFailure) {
    super(failure.message);
  }
}

const isAttemptFailure = (error: unknown): error is StreamedFailure => error instanceof StreamedFailure;

function streamedFailure(chunk: Record<string, unknown>, data: string): StreamedFailure | null {
  const inner = asRecord(chunk['error']) ?? (chunk['object'] === 'error' ? chunk : undefined);
  if (!inner && typeof chunk['error'] !== 'string') return null;
  const code = inner?.['code'];
  const status = typeof code === 'number' && code >= 400 && code < 600 ? code : 500;
  return new StreamedFailure(classifyHttpFailure(status, new Headers(), data));
}

function headersOf(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  return headers;
}

const WITHHELD: Partial<Record<string, string>> = {
  MODEL_ERR_CONNECTION: 'the endpoint could not be reached',
  MODEL_ERR_TIMEOUT: 'the request timed out',
  MODEL_ERR_BAD_RESPONSE: 'the endpoint answered with something that is not a chat completion',
  MODEL_ERR_ENDPOINT_REFUSED: 'the endpoint is not allowed',
};
