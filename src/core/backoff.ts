/**
 * The one backoff: exponential with "equal jitter", and a wait that a cancel cuts short. The scheduler (between
 * rollout attempts) and the model agent (between request attempts) both use it, so neither waits out a delay
 * after its run was cancelled.
 */
import { setTimeout as wait } from 'node:timers/promises';
import { CorralError } from './errors.js';

export interface BackoffPolicy {
  /** Delay before the first retry, before jitter. */
  baseMs: number;
  /** Ceiling for the exponential part, before jitter. */
  maxMs: number;
}

/**
 * Delay before retry number `retry` (0 for the first retry): base·2^retry capped at max, half fixed and half
 * random, so a thousand rollouts hit by the same 503 do not come back in lockstep.
 */
export function backoffDelayMs(retry: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  const exponential = Math.min(policy.maxMs, policy.baseMs * 2 ** retry);
  return exponential / 2 + (exponential / 2) * random();
}

/** Resolves after `ms`, or rejects with ERR_ABORTED as soon as the signal fires (the timer is cleared). */
export async function abortableDelay(ms: number, abortSignal: AbortSignal | undefined): Promise<void> {
  try {
    await wait(ms, undefined, { signal: abortSignal });
  } catch (error) {
    if (abortSignal?.aborted) throw new CorralError('ERR_ABORTED', 'operation was cancelled', { cause: abortSignal.reason });
    throw error;
  }
}
