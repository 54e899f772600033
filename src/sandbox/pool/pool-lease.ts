import { CorralError } from '../../core/errors.js';
import { fileSystemCopyOf } from '../fork.js';
import type { ForkOptions, Lease } from '../lease.js';
import type { SandboxHandle } from '../provider.js';
import type { SandboxSession } from '../session.js';
import type { SandboxSnapshot, SnapshotOptions } from '../snapshot.js';

/** The pool's Lease: owns one handle until release(); release is idempotent and never throws. */
export class PoolLease implements Lease {
  private released = false;
  private readonly expiryTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly id: string,
    private readonly handle: SandboxHandle,
    readonly specHash: string,
    readonly expiresAtMs: number,
    readonly acquireMs: number,
    private readonly onRelease: (handle: SandboxHandle, destroy: boolean) => Promise<void>,
    private readonly onFork: (parent: Lease, options: ForkOptions) => Promise<Lease[]>,
  ) {
    // A lease that outlives its sandbox's lifetime is reclaimed: nothing may hold a sandbox forever.
    const remainingMs = expiresAtMs - Date.now();
    this.expiryTimer = setTimeout(() => void this.release({ destroy: true }), Math.max(0, remainingMs));
    this.expiryTimer.unref();
  }

  get session(): SandboxSession {
    return this.handle.session;
  }

  get closed(): boolean {
    return this.released || this.handle.closed;
  }

  /**
   * The handle's own probe waits out the agent connection's host margin (seconds) on top of timeoutMs; a frozen
   * sandbox must be told apart sooner, so the answer is capped at timeoutMs here.
   */
  async health(options: { timeoutMs?: number } = {}): Promise<boolean> {
    if (this.closed) return false;
    const timeoutMs = options.timeoutMs ?? 5_000;
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    try {
      return await Promise.race([this.handle.health({ timeoutMs, abortSignal: controller.signal }).catch(() => false), deadline]);
    } finally {
      clearTimeout(timer);
      controller.abort();
    }
  }

  snapshot(options: SnapshotOptions = {}): Promise<SandboxSnapshot> {
    if (this.closed) return Promise.reject(new CorralError('SBX_ERR_CLOSED', `lease ${this.id} was released or its sandbox is gone`));
    try {
      return fileSystemCopyOf(this.handle).snapshot(options);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  fork(options: ForkOptions): Promise<Lease[]> {
    return this.onFork(this, options);
  }

  async release(options: { destroy?: boolean } = {}): Promise<void> {
    if (this.released) return;
    this.released = true;
    clearTimeout(this.expiryTimer);
    await this.onRelease(this.handle, options.destroy === true || this.handle.closed);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.release();
  }
}
