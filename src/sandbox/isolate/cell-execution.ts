/**
 * Runs one cell in a runtime and says how it ended. Two clocks guard it: isolated-vm's own `timeout` stops code
 * that is burning CPU (including microtasks), and a host timer stops a call that is merely waiting on a promise
 * that never settles. Either way the runtime is disposed; the caller replaces it.
 */
import type { Reference } from 'isolated-vm';
import type { JavascriptError } from './cell-compiler.js';
import { compileCell } from './cell-compiler.js';
import type { DisposeReason, FinishedValue, IsolateRuntime } from './isolate-runtime.js';
import { thrownValue } from './thrown-value.js';

export type CellOutcome =
  | { kind: 'finished'; value: string | null; error: JavascriptError | null; logs: string[] }
  | { kind: 'timeout'; logs: string[] }
  | { kind: 'memory-limit'; logs: string[] }
  | { kind: 'aborted' }
  /** reset() or destroy() disposed the runtime while the cell ran. */
  | { kind: 'interrupted'; by: 'reset' | 'destroy' };

/** What isolated-vm rejects with when its `timeout` option stops a script. */
const TIMEOUT_MESSAGE = 'Script execution timed out.';
const TIMER_TOLERANCE_MS = 5;

type Interruption = 'timeout' | 'aborted';

/** The cell's own result, or a thrown infrastructure error (disposed isolate, isolated-vm timeout). */
async function evaluate(runtime: IsolateRuntime, code: string, deadline: number): Promise<FinishedValue> {
  const filename = `cell-${(runtime.cellCount += 1)}.js`;
  const compiled = await compileCell(runtime.isolate, code, filename);
  if (compiled.script === null) return { value: null, error: compiled.error };
  const remainingMs = () => Math.max(1, Math.ceil(deadline - performance.now()));
  let completion: Reference<unknown>;
  try {
    completion = await compiled.script.run(runtime.context, { timeout: remainingMs(), reference: true, release: true });
  } catch (thrown) {
    // A user's `throw` is a value; termination by the clock or by disposal is not. A user can throw an Error with
    // the timeout's message, but not at the deadline (the tolerance covers timer granularity).
    const atDeadline = performance.now() >= deadline - TIMER_TOLERANCE_MS;
    const terminated = !runtime.alive || (thrown instanceof Error && thrown.message === TIMEOUT_MESSAGE && atDeadline);
    if (terminated) throw thrown;
    return { value: null, error: thrownValue(thrown) };
  }
  return runtime.finish.apply(undefined, [completion.derefInto({ release: true })], {
    timeout: remainingMs(),
    result: { promise: true, copy: true },
  });
}

/** Resolves when the host clock runs out or the caller aborts; `cancel` clears both. */
function interruption(timeoutMs: number, abortSignal: AbortSignal | undefined): { promise: Promise<Interruption>; cancel: () => void } {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const promise = new Promise<Interruption>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
    if (abortSignal) {
      onAbort = () => resolve('aborted');
      abortSignal.addEventListener('abort', onAbort, { once: true });
    }
  });
  const cancel = () => {
    clearTimeout(timer);
    if (onAbort) abortSignal?.removeEventListener('abort', onAbort);
  };
  return { promise, cancel };
}

function interruptedBy(reason: DisposeReason): CellOutcome {
  if (reason === 'reset' || reason === 'destroy') return { kind: 'interrupted', by: reason };
  // Only the running call disposes for 'timeout' or 'abort' (and reports it itself); kept total for the compiler.
  return reason === 'abort' ? { kind: 'aborted' } : { kind: 'timeout', logs: [] };
}

export async function executeCell(runtime: IsolateRuntime, options: { code: string; timeoutMs: number; abortSignal?: AbortSignal }): Promise<CellOutcome> {
  const deadline = performance.now() + options.timeoutMs;
  const capture = runtime.startCapture();
  const work = evaluate(runtime, options.code, deadline);
  const stop = interruption(options.timeoutMs, options.abortSignal);
  const disposal = new Promise<{ by: DisposeReason }>((resolve) => runtime.watchDisposal((by) => resolve({ by })));
  try {
    const first = await Promise.race([work.then((finished) => ({ finished })), stop.promise, disposal]);
    if (first === 'timeout' || first === 'aborted') {
      work.catch(() => undefined); // settles with "isolate disposed" once disposal below lands
      runtime.dispose(first === 'timeout' ? 'timeout' : 'abort');
      return first === 'timeout' ? { kind: 'timeout', logs: capture.finish() } : { kind: 'aborted' };
    }
    if ('by' in first) return interruptedBy(first.by);
    return { kind: 'finished', value: first.finished.value, error: first.finished.error, logs: capture.finish() };
  } catch (failure) {
    const reason = runtime.disposeReason;
    if (reason !== null) return interruptedBy(reason);
    if (!runtime.alive) return { kind: 'memory-limit', logs: capture.finish() };
    if (failure instanceof Error && failure.message === TIMEOUT_MESSAGE) {
      runtime.dispose('timeout');
      return { kind: 'timeout', logs: capture.finish() };
    }
    throw failure;
  } finally {
    stop.cancel();
    runtime.watchDisposal(null);
  }
}
