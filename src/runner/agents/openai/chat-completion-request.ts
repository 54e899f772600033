/**
 * One chat-completions call with our own retry loop (the openai package's would not do: its backoff base is fixed
 * at 0.5 s, its sleep between attempts does not listen to the abort signal, and its timeout stops at the response
 * headers). Every attempt, headers and body, runs under one timer; the backoff between attempts is abortable.
 */
import { throwIfAborted } from '../../../core/abort.js';
import { CorralError } from '../../../core/errors.js';
import type { ModelHttpClient } from './model-http-client.js';
import { classifyHttpFailure, classifyModelError, toModelError, type ModelAttemptFailure } from './model-error.js';
import { abortableDelay, backoffDelayMs, type BackoffPolicy } from '../../../core/backoff.js';
import { RETRY_AFTER_CAP_MS } from './retry-after.js';
import { reportModelAttempt } from './model-load-report.js';

export interface ModelRequestPolicy {
  /** Retries after the first attempt, for 429, 408, 5xx, connection errors and timeouts only. */
  maxRetries: number;
  /** Per attempt, from sending the request to the last byte of the body. */
  requestTimeoutMs: number;
  backoff: BackoffPolicy;
}

export interface ModelRequestOptions {
  policy: ModelRequestPolicy;
  /** Named in error messages and details. */
  model: string;
  /** e.g. http://127.0.0.1:8000/v1; /chat/completions is appended. */
  baseURL: string;
  /** Sent as a bearer token. */
  apiKey: string;
  /** Appended to baseURL; default /chat/completions (token-in mode: /completions, and /tokenize beside /v1). */
  path?: string;
  abortSignal: AbortSignal;
}

/**
 * Sends `body` to /chat/completions and returns the parsed response body untouched (vLLM's extra fields such as
 * prompt_token_ids survive). Throws ERR_ABORTED when the signal fires, and a MODEL_ERR_* CorralError (details.status,
 * details.attempts) when retries are exhausted or the failure is one retrying cannot fix.
 */
export async function requestChatCompletion(client: ModelHttpClient, body: Record<string, unknown>, options: ModelRequestOptions): Promise<unknown> {
  const { policy, abortSignal } = options;
  const url = new URL(`${options.baseURL.replace(/\/+$/, '')}${options.path ?? '/chat/completions'}`);
  const headers = { authorization: `Bearer ${options.apiKey}` };
  for (let attempt = 1; ; attempt++) {
    throwIfAborted(abortSignal);
    const outcome = await attemptOnce(client, { url, headers, body }, policy.requestTimeoutMs, abortSignal);
    if (!('failure' in outcome)) return outcome.body;
    const { failure } = outcome;
    if (!failure.retryable || attempt > policy.maxRetries) throw toModelError(failure, { attempts: attempt, model: options.model, baseURL: options.baseURL });
    const requested = Math.min(failure.retryAfterMs ?? 0, RETRY_AFTER_CAP_MS);
    await abortableDelay(Math.max(requested, backoffDelayMs(attempt - 1, policy.backoff)), abortSignal);
  }
}

async function attemptOnce(
  client: ModelHttpClient,
  request: { url: URL; headers: Record<string, string>; body: unknown },
  timeoutMs: number,
  abortSignal: AbortSignal,
): Promise<{ body: unknown } | { failure: ModelAttemptFailure }> {
  // A controller per attempt (not AbortSignal.any) so the listener on the long-lived rollout signal is removed after each attempt.
  const attemptController = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    attemptController.abort();
  }, timeoutMs);
  const onAbort = () => attemptController.abort(abortSignal.reason);
  abortSignal.addEventListener('abort', onAbort, { once: true });
  const startedAtMs = performance.now();
  try {
    const reply = await client.postJson(request.url, request.body, request.headers, attemptController.signal);
    if (reply.status < 200 || reply.status >= 300)
      return reportModelAttempt({ failure: classifyHttpFailure(reply.status, reply.headers, reply.text) }, startedAtMs);
    return reportModelAttempt({ body: JSON.parse(reply.text) as unknown }, startedAtMs);
  } catch (error) {
    if (abortSignal.aborted) throw new CorralError('ERR_ABORTED', 'model request was cancelled', { cause: abortSignal.reason });
    return reportModelAttempt({ failure: classifyModelError(error, timedOut) }, startedAtMs);
  } finally {
    clearTimeout(timer);
    abortSignal.removeEventListener('abort', onAbort);
  }
}
