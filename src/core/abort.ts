import { CorralError } from './errors.js';

/** Throws ERR_ABORTED when the signal has fired; call at the top of cancellable work. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new CorralError('ERR_ABORTED', 'operation was cancelled', { cause: signal.reason });
}

/** Rejects with ERR_ABORTED as soon as the signal fires; resolves/rejects with the promise otherwise. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  throwIfAborted(signal);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new CorralError('ERR_ABORTED', 'operation was cancelled', { cause: signal.reason }));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
