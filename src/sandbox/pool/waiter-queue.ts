/**
 * A waiter in a bucket's FIFO queue: resolved by the pool with a sandbox, or rejected by its own timeout or
 * AbortSignal. Settling removes it from the queue, so the pool never hands a sandbox to a waiter that gave up.
 */
import { CorralError } from '../../core/errors.js';
import type { SandboxHandle } from '../provider.js';
import { type SpecBucket, type Waiter, bucketStats } from './spec-bucket.js';

export function enqueueWaiter(bucket: SpecBucket, options: { timeoutMs: number; abortSignal?: AbortSignal }): Promise<SandboxHandle> {
  const { timeoutMs, abortSignal } = options;
  return new Promise<SandboxHandle>((resolve, reject) => {
    const settle = () => {
      clearTimeout(timer);
      abortSignal?.removeEventListener('abort', onAbort);
      const index = bucket.waiters.indexOf(waiter);
      if (index >= 0) bucket.waiters.splice(index, 1);
    };
    const waiter: Waiter = {
      enqueuedAtMs: Date.now(),
      resolve: (handle) => (settle(), resolve(handle)),
      reject: (error) => (settle(), reject(error)),
    };
    const timer = setTimeout(
      () =>
        waiter.reject(new CorralError('POOL_ERR_ACQUIRE_TIMEOUT', `no sandbox became free within ${timeoutMs} ms`, { details: { ...bucketStats(bucket) } })),
      timeoutMs,
    );
    const onAbort = () => waiter.reject(new CorralError('ERR_ABORTED', 'acquire was cancelled', { cause: abortSignal?.reason }));
    if (abortSignal?.aborted) return onAbort();
    abortSignal?.addEventListener('abort', onAbort, { once: true });
    bucket.waiters.push(waiter);
  });
}
