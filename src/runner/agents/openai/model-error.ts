/**
 * Classifies what went wrong with one model request, so the retry loop knows whether to try again and the final
 * CorralError carries a stable code (transient per kind, see ERROR_CODES) and the HTTP status.
 */
import { CorralError, type ErrorCode } from '../../../core/errors.js';

export type ModelErrorCode = Extract<ErrorCode, `MODEL_ERR_${string}`>;

export interface ModelAttemptFailure {
  code: ModelErrorCode;
  retryable: boolean;
  message: string;
  status?: number;
  /** What the server asked for through Retry-After / retry-after-ms, when it did. */
  retryAfterMs?: number;
  requestId?: string;
  cause: unknown;
}

// vLLM, SGLang and OpenAI word this differently; a context overflow is not an endpoint fault and never heals on retry.
const CONTEXT_LENGTH_PATTERN = /context.length|maximum model length|context window|prompt is too long/i;
/** undici's own timeouts (the request loop sets none on requests, but a connect can still time out). */
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

/** An answer with a non-2xx status: retryable for 429, 408 and 5xx, named for context overflows. */
export function classifyHttpFailure(status: number, headers: Headers, text: string): ModelAttemptFailure {
  const { message: said, code: errorCode } = upstreamError(text);
  const common = {
    status,
    message: `${status} ${said ?? 'status code (no body)'}`,
    requestId: headers.get('x-request-id') ?? undefined,
    cause: new Error(text.slice(0, 2_000)),
  };
  if (status === 429) return { ...common, code: 'MODEL_ERR_RATE_LIMITED', retryable: true, retryAfterMs: retryAfterMs(headers) };
  if (status === 408 || status >= 500) return { ...common, code: 'MODEL_ERR_SERVER', retryable: true, retryAfterMs: retryAfterMs(headers) };
  if ((status === 400 || status === 413) && (errorCode === 'context_length_exceeded' || CONTEXT_LENGTH_PATTERN.test(said ?? '')))
    return { ...common, code: 'MODEL_ERR_CONTEXT_LENGTH', retryable: false };
  return { ...common, code: 'MODEL_ERR_HTTP', retryable: false };
}

/** A request that failed before a whole answer arrived. `timedOut`: our own per-attempt timer aborted it. */
export function classifyModelError(error: unknown, timedOut: boolean): ModelAttemptFailure {
  if (CorralError.isInstance(error) && error.code.startsWith('MODEL_')) {
    return { code: error.code as ModelErrorCode, retryable: false, message: error.message, cause: error };
  }
  // A connection refused by the endpoint policy (inside the socket's lookup), in case a layer wraps it.
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  if (CorralError.hasCode(cause, 'MODEL_ERR_ENDPOINT_REFUSED'))
    return { code: 'MODEL_ERR_ENDPOINT_REFUSED', retryable: false, message: cause.message, cause: error };
  const code = (error as { code?: unknown } | undefined)?.code;
  if (timedOut || (typeof code === 'string' && TIMEOUT_CODES.has(code))) {
    return { code: 'MODEL_ERR_TIMEOUT', retryable: true, message: 'model request timed out', cause: error };
  }
  // A 2xx body that does not parse as JSON.
  if (error instanceof SyntaxError) {
    return { code: 'MODEL_ERR_BAD_RESPONSE', retryable: false, message: `model endpoint sent a body that is not valid JSON (${error.message})`, cause: error };
  }
  // Socket errors (ECONNREFUSED, ECONNRESET, UND_ERR_SOCKET for a connection dropped mid-body, ENOTFOUND).
  if (typeof code === 'string' || error instanceof TypeError) {
    return {
      code: 'MODEL_ERR_CONNECTION',
      retryable: true,
      message: `connection to the model endpoint failed: ${error instanceof Error ? error.message : String(error)}`,
      cause: error,
    };
  }
  return { code: 'MODEL_ERR_BAD_RESPONSE', retryable: false, message: error instanceof Error ? error.message : String(error), cause: error };
}

/**
 * The endpoint's own words: OpenAI and current vLLM send `{error: {message, code}}`; SGLang and vLLM releases
 * before mid-2025 a flat `{object: 'error', message, code}`; FastAPI validation errors `{detail}`.
 */
function upstreamError(text: string): { message?: string; code?: string } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return text.trim() === '' ? {} : { message: text.trim().slice(0, 2_000) };
  }
  if (typeof body !== 'object' || body === null) return { message: text.slice(0, 2_000) };
  const record = body as { error?: unknown; message?: unknown; detail?: unknown; code?: unknown };
  const inner = typeof record.error === 'object' && record.error !== null ? (record.error as { message?: unknown; code?: unknown }) : record;
  const message =
    typeof inner.message === 'string'
      ? inner.message
      : typeof record.error === 'string'
        ? record.error
        : record.detail === undefined
          ? undefined
          : typeof record.detail === 'string'
            ? record.detail
            : JSON.stringify(record.detail);
  return { message, code: typeof inner.code === 'string' ? inner.code : undefined };
}

export function toModelError(failure: ModelAttemptFailure, context: { attempts: number; model: string; baseURL: string }): CorralError {
  const tried = context.attempts > 1 ? ` after ${context.attempts} attempts` : '';
  const status = failure.status === undefined ? '' : ` (HTTP ${failure.status})`;
  return new CorralError(failure.code, `model ${context.model} at ${context.baseURL} failed${status}${tried}: ${failure.message}`, {
    cause: failure.cause,
    details: {
      status: failure.status ?? null,
      attempts: context.attempts,
      model: context.model,
      baseURL: context.baseURL,
      requestId: failure.requestId ?? null,
    },
  });
}

/** Our own words per code, for callers who must not see what the endpoint said. */
const WITHHELD_TEXT: Partial<Record<ModelErrorCode, string>> = {
  MODEL_ERR_HTTP: 'the endpoint refused the request',
  MODEL_ERR_CONTEXT_LENGTH: 'the conversation exceeds the model context length',
  MODEL_ERR_RATE_LIMITED: 'the endpoint kept rate-limiting the request',
  MODEL_ERR_SERVER: 'the endpoint kept failing',
  MODEL_ERR_CONNECTION: 'the endpoint could not be reached',
  MODEL_ERR_TIMEOUT: 'the request timed out',
  MODEL_ERR_BAD_RESPONSE: 'the endpoint answered with something that is not a chat completion',
};

/**
 * The same failure with the endpoint's words taken out: status, code and attempts only. For the rollout API,
 * where base_url is chosen by a remote client, an upstream body (or a socket error naming internal addresses)
 * would let that client read services only the server can reach. The original stays the cause, for the log.
 */
export function withoutUpstreamDetail(error: CorralError): CorralError {
  const text = WITHHELD_TEXT[error.code as ModelErrorCode];
  if (!text) return error;
  const { status, attempts, model, baseURL } = error.details as { status?: number | null; attempts?: number; model?: string; baseURL?: string };
  const tried = typeof attempts === 'number' && attempts > 1 ? ` after ${attempts} attempts` : '';
  const http = typeof status === 'number' ? ` (HTTP ${status})` : '';
  return new CorralError(error.code, `model ${model ?? '?'} at ${baseURL ?? '?'} failed${http}${tried}: ${text} (details are in the server log)`, {
    cause: error,
    details: { status: status ?? null, attempts: attempts ?? null, model: model ?? null, baseURL: baseURL ?? null },
  });
}

function retryAfterMs(headers: Headers): number | undefined {
  const milliseconds = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const header = headers.get('retry-after');
  if (!header) return undefined;
  const seconds = Number.parseFloat(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
