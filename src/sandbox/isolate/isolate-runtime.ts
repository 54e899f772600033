/**
 * One V8 isolate holding one persistent context with the prelude installed. It is never repaired in place: after a
 * timeout, memory overflow, abort or reset the whole runtime is disposed and a new one is created (about 1 ms),
 * because a terminated isolate may be stuck in a microtask and a half-run script may leave globals inconsistent.
 */
import type { Context, Isolate, Reference } from 'isolated-vm';
import { PRELUDE_FILENAME, PRELUDE_SOURCE } from './in-isolate-prelude.js';
import type { IsolatedVm } from './load-isolated-vm.js';
import { LogCapture } from './log-capture.js';

/** V8 cannot run below about 8 MiB; above 1 GiB one REPL could starve the host process that all isolates share. */
export const MIN_MEMORY_LIMIT_MIB = 8;
export const MAX_MEMORY_LIMIT_MIB = 1024;

export function clampMemoryLimitMiB(memoryMiB: number): number {
  return Math.min(MAX_MEMORY_LIMIT_MIB, Math.max(MIN_MEMORY_LIMIT_MIB, Math.floor(memoryMiB)));
}

export interface FinishedValue {
  value: string | null;
  error: { name: string; message: string; stack: string } | null;
}

export type FinishFunction = (value: unknown) => Promise<FinishedValue>;

/** Why corral itself disposed an isolate; null means it is alive or V8 disposed it (memory limit). */
export type DisposeReason = 'timeout' | 'abort' | 'reset' | 'destroy';

export interface RuntimeOptions {
  memoryLimitMiB: number;
  /** V8 lost control of the isolate; the sandbox must close (see isolated-vm's onCatastrophicError). */
  onCatastrophicError: (message: string) => void;
}

/**
 * What isolated-vm holds of our onCatastrophicError callback. It keeps that function in a V8 global handle, which it
 * does not always free when the isolate is disposed; a closure over the REPL then kept every closed sandbox (REPL,
 * handle, lease, MCP server, and the Isolate wrappers with their native memory) alive (issue 21). The function
 * handed over reaches the real handler only through this route, which dispose() cuts, so at most this small object
 * stays behind.
 */
class CatastrophicErrorRoute {
  private readonly route: { target: ((message: string) => void) | null };
  /** Closes over the small route object only, never over the runtime or the REPL. */
  readonly handler: (message: string) => void;

  constructor(target: (message: string) => void) {
    const route: { target: ((message: string) => void) | null } = { target };
    this.route = route;
    this.handler = (message) => route.target?.(message);
  }

  disconnect(): void {
    this.route.target = null;
  }
}

export class IsolateRuntime {
  /** Numbers the scripts run here, so stack traces read `cell-3.js:1:7`. */
  cellCount = 0;
  private disposedBy: DisposeReason | null = null;
  private disposalWatcher: ((reason: DisposeReason) => void) | null = null;

  private constructor(
    readonly isolate: Isolate,
    readonly context: Context,
    /** The prelude's finish(); a Reference to an isolate function, never handed to user code. */
    readonly finish: Reference<FinishFunction>,
    /** Where the console callback delivers lines: the capture of the call now running. */
    private readonly logTarget: { capture: LogCapture | null },
    private readonly errorRoute: CatastrophicErrorRoute,
  ) {}

  /**
   * Built synchronously: measured at ~1.0 ms per isolate+context versus ~1.4 ms with createContext(), since the
   * async variant pays two thread hops and creation is too short to be worth moving off the event loop.
   */
  static create(ivm: IsolatedVm, options: RuntimeOptions): IsolateRuntime {
    const errorRoute = new CatastrophicErrorRoute(options.onCatastrophicError);
    const isolate = new ivm.Isolate({ memoryLimit: options.memoryLimitMiB, onCatastrophicError: errorRoute.handler });
    try {
      const context = isolate.createContextSync();
      const logTarget: { capture: LogCapture | null } = { capture: null };
      // `ignored` callbacks are fire-and-forget (~2 µs per line instead of ~70 µs for a synchronous hop), and
      // isolated-vm delivers them on the same task queue as the call's result, so every line lands before it.
      const emitLog = new ivm.Callback((line: unknown) => logTarget.capture?.add(String(line)), { ignored: true });
      const finish = context.evalClosureSync(PRELUDE_SOURCE, [emitLog], {
        filename: PRELUDE_FILENAME,
        result: { reference: true },
      }) as Reference<FinishFunction>;
      return new IsolateRuntime(isolate, context, finish, logTarget, errorRoute);
    } catch (error) {
      errorRoute.disconnect();
      isolate.dispose();
      throw error;
    }
  }

  /** False once disposed, by corral or by V8 hitting the memory limit. */
  get alive(): boolean {
    return !this.isolate.isDisposed;
  }

  /** Why corral disposed this runtime, or null when V8 did (memory limit) or it is still alive. */
  get disposeReason(): DisposeReason | null {
    return this.disposedBy;
  }

  /** Routes console lines to a fresh capture until the next call starts one. */
  startCapture(): LogCapture {
    this.logTarget.capture = new LogCapture();
    return this.logTarget.capture;
  }

  /**
   * Tells the running call (one at a time) when corral disposes this runtime. The call cannot just wait for the
   * isolate to fail: after a catastrophic V8 error it may never answer again. Pass null when the call ends.
   */
  watchDisposal(watcher: ((reason: DisposeReason) => void) | null): void {
    this.disposalWatcher = watcher;
  }

  /** For a runtime V8 disposed itself (memory limit) and corral drops: nothing of it may stay reachable. */
  forget(): void {
    this.errorRoute.disconnect();
  }

  /** Terminates anything running in the isolate and frees its heap. Safe to call twice. */
  dispose(reason: DisposeReason): void {
    this.errorRoute.disconnect();
    if (this.isolate.isDisposed) return;
    this.disposedBy ??= reason;
    this.disposalWatcher?.(this.disposedBy);
    try {
      this.isolate.dispose();
    } catch {
      // Already disposed by V8 between the check and the call: nothing left to free.
    }
  }
}
