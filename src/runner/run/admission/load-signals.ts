/**
 * What the admission controller reads: load signals reported by the parts that see load (the model client, the
 * sandbox pool through the composition root, a vLLM /metrics poller, the host's memory). Producers inside a rollout
 * report through `reportLoad`, which reaches the observer of the rollout's own run (an AsyncLocalStorage set by the
 * run driver around each rollout), so nothing between the driver and the model client has to carry it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export type LoadSignal =
  /**
   * One model request attempt. `overloaded`: 429, 503 or 504; `timeout`: the attempt's own timer; `failed`: any other
   * failure (a 400, a refused connection), which says nothing about load. Times are performance.now() ms.
   */
  | { kind: 'model-call'; outcome: 'ok' | 'overloaded' | 'timeout' | 'failed'; startedAtMs: number; latencyMs: number }
  /** A rollout finished; `modelCalls` says whether it reported model calls (the ramp is clocked by those when it did). */
  | { kind: 'rollout-done'; modelCalls: boolean }
  /** A sandbox acquire that had to wait for one. */
  | { kind: 'sandbox-wait'; startedAtMs: number; waitMs: number }
  /** The model server's own load (vLLM /metrics): requests running and waiting, KV-cache usage 0..1 when served. */
  | { kind: 'server-load'; running: number; waiting: number; kvCacheUsage?: number }
  /** The host is short of memory. */
  | { kind: 'memory-pressure'; freeFraction: number };

export interface LoadObserver {
  observe(signal: LoadSignal): void;
}

const currentObserver = new AsyncLocalStorage<LoadObserver>();

/** Runs `task` with `observer` receiving what `reportLoad` reports inside it (and in everything it awaits). */
export function withLoadObserver<T>(observer: LoadObserver, task: () => T): T {
  return currentObserver.run(observer, task);
}

/** Reports a signal to the observer of the run this code is part of; outside a run, nothing happens. */
export function reportLoad(signal: LoadSignal): void {
  currentObserver.getStore()?.observe(signal);
}
