/**
 * The pool's view of one isolate sandbox: liveness, reset-and-verify, destroy, and a close notification when the
 * sandbox dies on its own (V8 lost control of the isolate, its lease deadline passed, or cleanup reaped it).
 */
import { randomBytes } from 'node:crypto';
import { CorralError } from '../../core/errors.js';
import type { CreateOptions, ResetReport, SandboxHandle } from '../provider.js';
import type { SandboxSpec } from '../spec.js';
import { clampMemoryLimitMiB } from './isolate-runtime.js';
import { IsolateSession } from './isolate-session.js';
import { JavascriptRepl } from './javascript-repl.js';
import { trackSandbox, untrackSandbox, type ReapableSandbox } from './live-isolates.js';
import type { IsolatedVm } from './load-isolated-vm.js';

const DEFAULT_PROBE_TIMEOUT_MS = 2_000;
/** setTimeout cannot wait longer than this (about 24.8 days); longer deadlines are re-armed. */
const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/** Resolves with the promise, or with `fallback` when the clock or the signal wins; never rejects. */
async function settleWithin<T, F>(promise: Promise<T>, timeoutMs: number, abortSignal: AbortSignal | undefined, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<F>((resolve) => {
    timer = setTimeout(() => resolve(fallback), timeoutMs);
    onAbort = () => resolve(fallback);
    abortSignal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([promise.catch(() => fallback), stop]);
  } finally {
    clearTimeout(timer);
    if (onAbort) abortSignal?.removeEventListener('abort', onAbort);
  }
}

export class IsolateHandle implements SandboxHandle, ReapableSandbox {
  readonly session: IsolateSession;
  readonly ownerId: string;
  readonly expiresAtMs: number;
  private readonly repl: JavascriptRepl;
  private readonly closeListeners: Array<(reason: Error) => void> = [];
  private diedOnItsOwn: Error | null = null;
  private destroyed = false;
  private expiryTimer: NodeJS.Timeout | undefined;

  constructor(ivm: IsolatedVm, spec: SandboxSpec, options: CreateOptions) {
    this.repl = new JavascriptRepl(ivm, { memoryLimitMiB: clampMemoryLimitMiB(spec.memoryMiB), onFatal: (reason) => this.die(reason) });
    this.session = new IsolateSession(options.sandboxId, this.repl);
    this.ownerId = options.ownerId;
    this.expiresAtMs = options.expiresAtMs;
    this.armExpiry(options.expiresAtMs);
    trackSandbox(this);
  }

  get closed(): boolean {
    return this.destroyed || this.repl.closed;
  }

  async health(options: { abortSignal?: AbortSignal; timeoutMs?: number } = {}): Promise<boolean> {
    if (this.closed || options.abortSignal?.aborted) return false;
    const runtime = this.repl.runtime;
    if (!runtime.alive) return false;
    // Queued behind a running call, the probe waits; past the timeout the sandbox counts as unhealthy (busy).
    const timeoutMs = options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
    const probe = runtime.context.eval('1 + 1', { timeout: timeoutMs });
    return (await settleWithin(probe, timeoutMs, options.abortSignal, undefined)) === 2;
  }

  /**
   * Replaces the isolate (stopping any running call, which then throws SBX_ERR_KILLED) and proves from inside the new
   * context that a sentinel global set in the old one is gone. Resolves ok:false instead of throwing.
   */
  async reset(options: { abortSignal?: AbortSignal; timeoutMs?: number } = {}): Promise<ResetReport> {
    const startedAt = performance.now();
    const report = (leftovers: string[]): ResetReport =>
      leftovers.length === 0 ? { ok: true, durationMs: performance.now() - startedAt } : { ok: false, durationMs: performance.now() - startedAt, leftovers };
    if (this.closed) return report(['the sandbox is closed']);
    const sentinel = `__corralResetSentinel_${randomBytes(6).toString('hex')}`;
    // Only an idle isolate can take the sentinel at once; a busy one is disposed mid-call, which proves as much.
    if (this.repl.idle) await this.repl.runtime.context.global.set(sentinel, true).catch(() => undefined);
    try {
      this.repl.replaceRuntime('reset');
    } catch (error) {
      this.die(error instanceof Error ? error : new Error(String(error)));
      return report(['a fresh isolate could not be created']);
    }
    const check = `typeof globalThis[${JSON.stringify(sentinel)}] === 'undefined' && 1 + 1 === 2`;
    const timeoutMs = options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
    const clean = await settleWithin(this.repl.runtime.context.eval(check, { timeout: timeoutMs }), timeoutMs, options.abortSignal, false);
    return report(clean === true ? [] : [`global ${sentinel} survived the reset, or the new context did not answer`]);
  }

  /** Frees the isolate. Idempotent; calls in flight throw SBX_ERR_CLOSED. Does not notify onClose listeners. */
  async destroy(): Promise<void> {
    if (this.destroyed) return;
    this.destroyed = true;
    clearTimeout(this.expiryTimer);
    untrackSandbox(this);
    this.repl.close(new CorralError('SBX_ERR_CLOSED', 'the sandbox was destroyed'));
  }

  onClose(listener: (reason: Error) => void): void {
    // A listener added after the sandbox died still hears about it, once.
    if (this.diedOnItsOwn) queueMicrotask(() => listener(this.diedOnItsOwn as Error));
    else this.closeListeners.push(listener);
  }

  /** Called by provider.cleanup() for an orphan: the same as dying on its own, from the pool's point of view. */
  reap(reason: Error): void {
    this.die(reason);
  }

  private die(reason: Error): void {
    if (this.diedOnItsOwn || this.destroyed) return;
    this.diedOnItsOwn = reason;
    clearTimeout(this.expiryTimer);
    untrackSandbox(this);
    this.repl.close(reason);
    for (const listener of this.closeListeners.splice(0)) listener(reason);
  }

  /** The dead-man switch: an isolate whose lease deadline passed is freed even if nobody releases it. */
  private armExpiry(expiresAtMs: number): void {
    const delayMs = expiresAtMs - Date.now();
    this.expiryTimer = setTimeout(
      () => {
        if (delayMs > MAX_TIMER_DELAY_MS) this.armExpiry(expiresAtMs);
        else this.die(new CorralError('SBX_ERR_CLOSED', 'the sandbox passed its lease deadline and was freed'));
      },
      Math.max(0, Math.min(delayMs, MAX_TIMER_DELAY_MS)),
    );
    // The timer must not keep a finished process alive; isolates die with the process anyway.
    this.expiryTimer.unref();
  }
}
