/**
 * The persistent JavaScript REPL behind one isolate sandbox: runs cells in turn, replaces the runtime after a
 * timeout, memory overflow or abort, and reports lost state. Failures inside user code are values (the contract's
 * rule); only a closed sandbox, an abort or an interrupted call throw.
 *
 * Memory overflow is returned as error { name: 'MemoryLimitError', message ending in "(SBX_ERR_MEMORY_LIMIT)" }
 * with stateLost=true, not thrown: running out of a REPL's heap is the model's doing and it can carry on.
 */
import { raceAbort, throwIfAborted } from '../../core/abort.js';
import { CorralError } from '../../core/errors.js';
import type { JavascriptOptions, JavascriptResult } from '../session.js';
import { executeCell } from './cell-execution.js';
import type { DisposeReason } from './isolate-runtime.js';
import { IsolateRuntime } from './isolate-runtime.js';
import type { IsolatedVm } from './load-isolated-vm.js';
import { SerialQueue } from './serial-queue.js';

export const DEFAULT_JAVASCRIPT_TIMEOUT_MS = 5_000;
/** Upper bound for one call; the tool layer allows at most 600 s. */
export const MAX_JAVASCRIPT_TIMEOUT_MS = 600_000;

export interface ReplOptions {
  memoryLimitMiB: number;
  /** The sandbox died on its own (V8 lost control, or a replacement runtime could not be built). */
  onFatal: (reason: Error) => void;
}

export class JavascriptRepl {
  private runtimeInUse: IsolateRuntime;
  private readonly queue = new SerialQueue();
  /** The runtime was replaced outside a call (abort), so the next result must say its globals are gone. */
  private stateLostBeforeNextCall = false;
  private closedReason: Error | null = null;

  constructor(
    private readonly ivm: IsolatedVm,
    private readonly options: ReplOptions,
  ) {
    this.runtimeInUse = this.createRuntime();
  }

  get closed(): boolean {
    return this.closedReason !== null;
  }

  /** True when no call is queued or running. */
  get idle(): boolean {
    return this.queue.size === 0;
  }

  /** The live runtime; throws SBX_ERR_CLOSED once the sandbox is gone. */
  get runtime(): IsolateRuntime {
    if (this.closedReason) throw new CorralError('SBX_ERR_CLOSED', `isolate sandbox is closed: ${this.closedReason.message}`);
    return this.runtimeInUse;
  }

  run(options: JavascriptOptions): Promise<JavascriptResult> {
    throwIfAborted(options.abortSignal);
    return raceAbort(
      this.queue.run(() => this.runNow(options)),
      options.abortSignal,
    );
  }

  /**
   * Disposes the current runtime (stopping any call in it; `null` when V8 already disposed it at the memory limit)
   * and installs a fresh one. If no new isolate can be built the sandbox closes and this throws SBX_ERR_KILLED.
   */
  replaceRuntime(reason: DisposeReason | null): void {
    const previous = this.runtime;
    if (reason !== null) previous.dispose(reason);
    else previous.forget();
    try {
      this.runtimeInUse = this.createRuntime();
    } catch (error) {
      const failure = new CorralError('SBX_ERR_KILLED', 'could not recreate the JavaScript isolate', { cause: error });
      this.close(failure);
      throw failure;
    }
    // A reset starts a new episode: nothing was lost from its point of view.
    if (reason === 'reset') this.stateLostBeforeNextCall = false;
  }

  /** Marks the sandbox gone and frees the isolate; the first reason wins. */
  close(reason: Error): void {
    if (this.closedReason) return;
    this.closedReason = reason;
    this.runtimeInUse.dispose('destroy');
  }

  private createRuntime(): IsolateRuntime {
    return IsolateRuntime.create(this.ivm, {
      memoryLimitMiB: this.options.memoryLimitMiB,
      onCatastrophicError: (message) => {
        const reason = new CorralError('SBX_ERR_KILLED', `V8 lost control of the isolate: ${message}`);
        this.close(reason);
        this.options.onFatal(reason);
      },
    });
  }

  private async runNow(options: JavascriptOptions): Promise<JavascriptResult> {
    throwIfAborted(options.abortSignal);
    const runtime = this.runtime;
    const startedAt = performance.now();
    const timeoutMs = Math.min(MAX_JAVASCRIPT_TIMEOUT_MS, Math.max(1, options.timeoutMs ?? DEFAULT_JAVASCRIPT_TIMEOUT_MS));
    const outcome = await executeCell(runtime, { code: options.code, timeoutMs, abortSignal: options.abortSignal });
    const stateLostBefore = this.stateLostBeforeNextCall;
    this.stateLostBeforeNextCall = false;
    const base = { value: null, error: null, timedOut: false, stateLost: stateLostBefore };
    switch (outcome.kind) {
      case 'finished':
        return { ...base, value: outcome.value, error: outcome.error, logs: outcome.logs, durationMs: performance.now() - startedAt };
      case 'timeout':
        this.recover(runtime, 'timeout');
        return { ...base, logs: outcome.logs, timedOut: true, stateLost: true, durationMs: performance.now() - startedAt };
      case 'memory-limit':
        this.recover(runtime, null);
        return { ...base, logs: outcome.logs, error: this.memoryLimitError(), stateLost: true, durationMs: performance.now() - startedAt };
      case 'aborted':
        this.recover(runtime, 'abort');
        this.stateLostBeforeNextCall = true;
        throw new CorralError('ERR_ABORTED', 'operation was cancelled', { cause: options.abortSignal?.reason });
      case 'interrupted':
        if (outcome.by === 'destroy') throw this.runtimeClosedError();
        throw new CorralError('SBX_ERR_KILLED', 'the sandbox was reset while this call ran');
    }
  }

  /** Replaces the runtime a call ran in, unless reset/destroy already did; a failed rebuild closes the sandbox. */
  private recover(runtime: IsolateRuntime, reason: DisposeReason | null): void {
    if (runtime !== this.runtimeInUse || this.closed) return;
    try {
      this.replaceRuntime(reason);
    } catch (error) {
      this.options.onFatal(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private runtimeClosedError(): CorralError {
    return new CorralError('SBX_ERR_CLOSED', `isolate sandbox is closed: ${this.closedReason?.message ?? 'destroyed'}`);
  }

  private memoryLimitError(): NonNullable<JavascriptResult['error']> {
    const message =
      `the JavaScript heap exceeded the sandbox memory limit of ${this.options.memoryLimitMiB} MiB; ` +
      'the isolate was recreated and earlier globals are gone (SBX_ERR_MEMORY_LIMIT)';
    return { name: 'MemoryLimitError', message, stack: `MemoryLimitError: ${message}` };
  }
}
