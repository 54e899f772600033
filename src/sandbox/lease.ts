/**
 * A Lease is the only way to reach a sandbox: code that holds no lease cannot touch one. Release it in a
 * `finally` or with `await using lease = await pool.acquire(...)`. release() is idempotent.
 */
import type { SandboxSession } from './session.js';
import type { SandboxSnapshot, SnapshotOptions } from './snapshot.js';

export interface Lease extends AsyncDisposable {
  readonly id: string;
  readonly session: SandboxSession;
  readonly specHash: string;
  /** Epoch ms when this lease's sandbox will be reclaimed regardless. */
  readonly expiresAtMs: number;
  /** Time spent waiting in acquire, in ms. */
  readonly acquireMs: number;
  /** Returns the sandbox to the pool (destroyed or reset per its spec). Safe to call twice. */
  release(options?: { destroy?: boolean }): Promise<void>;
  /** Liveness probe of the sandbox (its agent answers a ping within timeoutMs); false instead of throwing. */
  health(options?: { timeoutMs?: number }): Promise<boolean>;
  /** True once the sandbox died under this lease (calls will throw SBX_ERR_CLOSED). */
  readonly closed: boolean;
  /**
   * Copies this sandbox's writable places (workspace, /tmp, /dev/shm) as they are now, for `acquire({ from })`.
   * Throws SBX_ERR_UNSUPPORTED where the session lacks 'fork', SBX_ERR_FORK_FAILED when the copy fails.
   */
  snapshot(options?: SnapshotOptions): Promise<SandboxSnapshot>;
  /**
   * `count` new leases of the same spec whose files start as copies of this sandbox's now (one snapshot, then each
   * child from the warm pool, filled from it). Processes and REPL state do not carry over. This lease is unchanged.
   * All or nothing: on a failure every child is destroyed. Throws as snapshot() does, and as acquire does.
   */
  fork(options: ForkOptions): Promise<Lease[]>;
}

export interface ForkOptions {
  count: number;
  abortSignal?: AbortSignal;
  /** Overrides the pool's acquire timeout for each child. */
  timeoutMs?: number;
}
