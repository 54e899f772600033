/**
 * Classifies what went wrong with one model request, so the retry loop knows whether to try again and the final
 * CorralError carries a stable code (transient per kind, see ERROR_CODES) and the HTTP status.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
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

/** `timedOut` is true when our own per-attempt timer aborted the request (the client then reports an abort). */
export function classifyModelError(error: unknown, timedOut: boolean): ModelAttemptFailure {
  if (CorralError.isInstance(error) && error.code.startsWith('MODEL_')) {
    return { code: error.code as ModelErrorCode, retryable: false, message: error.message, cause: error };
  }
  // A connection refused by the endpoint policy (inside the socket's lookup) arrives wrapped by the openai package.
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  if (CorralError.hasCode(cause, 'MODEL_ERR_ENDPOINT_REFUSED')) return { code: 'MODEL_ERR_ENDPOINT_REFUSED', retryable: false, message: cause.message, cause: error };
  if (timedOut || error instanceof APIConnectionTimeoutError) {
    return { code: 'MODEL_ERR_TIMEOUT', retryable: true, message: 'model request timed out', cause: error };
  }
  if (error instanceof APIConnectionError) {
    const cause = (error as { cause?: unknown }).cause;
    const detail = cause instanceof Error ? `: ${cause.message}` : '';
    return { code: 'MODEL_ERR_CONNECTION', retryable: true, message: `${error.message}${detail}`, cause: error };
  }
  if (error instanceof APIError && typeof error.status === 'number') {
    const status = error.status;
    const common = { status, message: error.message, requestId: error.requestID ?? undefined, cause: error };
    if (status === 429) return { ...common, code: 'MODEL_ERR_RATE_LIMITED', retryable: true, retryAfterMs: retryAfterMs(error.headers) };
    if (status === 408 || status >= 500) return { ...common, code: 'MODEL_ERR_SERVER', retryable: true, retryAfterMs: retryAfterMs(error.headers) };
    if ((status === 400 || status === 413) && (error.code === 'context_length_exceeded' || CONTEXT_LENGTH_PATTERN.test(error.message))) return { ...common, code: 'MODEL_ERR_CONTEXT_LENGTH', retryable: false };
    return { ...common, code: 'MODEL_ERR_HTTP', retryable: false };
  }
  // A body that claims JSON but does not parse surfaces as a SyntaxError from response.json().
  if (error instanceof SyntaxError) {
    return { code: 'MODEL_ERR_BAD_RESPONSE', retryable: false, message: `model endpoint sent a body that is not valid JSON (${error.message})`, cause: error };
  }
  // undici reports a connection dropped mid-body as a TypeError ("terminated", "fetch failed").
  if (error instanceof TypeError) {
    return { code: 'MODEL_ERR_CONNECTION', retryable: true, message: `connection to the model endpoint failed: ${error.message}`, cause: error };
  }
  return { code: 'MODEL_ERR_BAD_RESPONSE', retryable: false, message: error instanceof Error ? error.message : String(error), cause: error };
}

export function toModelError(failure: ModelAttemptFailure, context: { attempts: number; model: string; baseURL: string }): CorralError {
  const tried = context.attempts > 1 ? ` after ${context.attempts} attempts` : '';
  const status = failure.status === undefined ? '' : ` (HTTP ${failure.status})`;
  return new CorralError(failure.code, `model ${context.model} at ${context.baseURL} failed${status}${tried}: ${failure.message}`, {
    cause: failure.cause,
    details: { status: failure.status ?? null, attempts: context.attempts, model: context.model, baseURL: context.baseURL, requestId: failure.requestId ?? null },
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

function retryAfterMs(headers: Headers | undefined): number | undefined {
  const milliseconds = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const header = headers?.get('retry-after');
  if (!header) return undefined;
  const seconds = Number.parseFloat(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
