/** Exponential backoff with jitter for model requests, and a sleep that a cancelled rollout does not wait out. */
import { CorralError } from '../../../core/errors.js';

export interface BackoffPolicy {
  /** Delay before the first retry, before jitter. */
  baseMs: number;
  /** Ceiling for the exponential part, before jitter. */
  maxMs: number;
}

/** Server-requested waits (Retry-After) are honoured up to this long; beyond it a rollout would look hung. */
export const RETRY_AFTER_CAP_MS = 60_000;

/**
 * Delay before retry number `retry` (0 for the first retry): base·2^retry capped at max, with "equal jitter"
 * (half fixed, half random) so a thousand rollouts hit by the same 503 do not come back in lockstep.
 */
export function backoffDelayMs(retry: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  const exponential = Math.min(policy.maxMs, policy.baseMs * 2 ** retry);
  return exponential / 2 + (exponential / 2) * random();
}

/** Resolves after `ms`, or rejects with ERR_ABORTED as soon as the signal fires (clearing the timer). */
export function abortableDelay(ms: number, abortSignal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const aborted = () => new CorralError('ERR_ABORTED', 'operation was cancelled', { cause: abortSignal?.reason });
    if (abortSignal?.aborted) return reject(aborted());
    const onAbort = () => {
      clearTimeout(timer);
      reject(aborted());
    };
    const timer = setTimeout(() => {
      abortSignal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    abortSignal?.addEventListener('abort', onAbort, { once: true });
  });
}
