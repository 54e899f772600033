/**
 * One chat-completions call with our own retry loop rather than the openai package's (its maxRetries is set to 0):
 * its backoff base is fixed at 0.5 s (tests and benchmarks need it configurable), its sleep between attempts does
 * not listen to the abort signal (a cancelled rollout would wait out the backoff), and its timeout stops at the
 * response headers, not the body. Here every attempt, headers and body, runs under one timer.
 */
import type OpenAI from 'openai';
import { throwIfAborted } from '../../../core/abort.js';
import { CorralError } from '../../../core/errors.js';
import { classifyModelError, toModelError, type ModelAttemptFailure } from './model-error.js';
import { abortableDelay, backoffDelayMs, type BackoffPolicy } from '../../../core/backoff.js';
import { RETRY_AFTER_CAP_MS } from './retry-after.js';

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
  baseURL: string;
  abortSignal: AbortSignal;
}

/**
 * Sends `body` to /chat/completions and returns the parsed response body untouched (vLLM's extra fields such as
 * prompt_token_ids survive). Throws ERR_ABORTED when the signal fires, and a MODEL_ERR_* CorralError (details.status,
 * details.attempts) when retries are exhausted or the failure is one retrying cannot fix.
 */
export async function requestChatCompletion(client: OpenAI, body: Record<string, unknown>, options: ModelRequestOptions): Promise<unknown> {
  const { policy, abortSignal } = options;
  for (let attempt = 1; ; attempt++) {
    throwIfAborted(abortSignal);
    const outcome = await attemptOnce(client, body, policy.requestTimeoutMs, abortSignal);
    if (!('failure' in outcome)) return outcome.body;
    const { failure } = outcome;
    if (!failure.retryable || attempt > policy.maxRetries) throw toModelError(failure, { attempts: attempt, model: options.model, baseURL: options.baseURL });
    const requested = Math.min(failure.retryAfterMs ?? 0, RETRY_AFTER_CAP_MS);
    await abortableDelay(Math.max(requested, backoffDelayMs(attempt - 1, policy.backoff)), abortSignal);
  }
}

async function attemptOnce(client: OpenAI, body: Record<string, unknown>, timeoutMs: number, abortSignal: AbortSignal): Promise<{ body: unknown } | { failure: ModelAttemptFailure }> {
  // A controller per attempt (not AbortSignal.any) so the listener on the long-lived rollout signal is removed after each attempt.
  const attemptController = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    attemptController.abort();
  }, timeoutMs);
  const onAbort = () => attemptController.abort(abortSignal.reason);
  abortSignal.addEventListener('abort', onAbort, { once: true });
  try {
    // The openai types do not know vLLM's extra body fields; the package sends the body as given.
    const response: unknown = await client.chat.completions.create(body as unknown as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming, {
      signal: attemptController.signal,
      maxRetries: 0,
    });
    return { body: response };
  } catch (error) {
    if (abortSignal.aborted) throw new CorralError('ERR_ABORTED', 'model request was cancelled', { cause: abortSignal.reason });
    return { failure: classifyModelError(error, timedOut) };
  } finally {
    clearTimeout(timer);
    abortSignal.removeEventListener('abort', onAbort);
  }
}
