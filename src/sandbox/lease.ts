/**
 * A Lease is the only way to reach a sandbox: code that holds no lease cannot touch one. Release it in a
 * `finally` or with `await using lease = await pool.acquire(...)`. release() is idempotent.
 */
import type { SandboxSession } from './session.js';

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
}
