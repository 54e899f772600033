/**
 * The sandboxes bound to one handle (an MCP session, a /v1/sandboxes id, a WebSocket connection, a stdio
 * process). Nothing is leased until a tool that needs a sandbox is first called; concurrent first calls
 * share one acquire. A sandbox that died or expired fails the next call with SBX_ERR_CLOSED (its state is
 * gone, which a caller must learn), and the call after that gets a fresh one. release() returns every
 * lease and is idempotent.
 */
import { raceAbort } from '../core/abort.js';
import { CorralError } from '../core/errors.js';
import type { Lease } from '../sandbox/lease.js';
import type { SandboxSession } from '../sandbox/session.js';
import type { SandboxSnapshot } from '../sandbox/snapshot.js';
import { type ToolSandbox, lazyToolSandbox } from '../tools/tool-sandbox.js';
import type { SandboxKind, SandboxSource } from './sandbox-source.js';

/** What a tool server needs from its handle: a session of a kind, leased on demand. */
export interface ToolSandboxes {
  session(kind: SandboxKind, options?: { abortSignal?: AbortSignal }): Promise<SandboxSession>;
  /**
   * After a call on `session` timed out: pings its sandbox and, when the agent does not answer its own health
   * check, takes it out of service (destroyed, never pooled again) so the next call leases a fresh one. True
   * when the sandbox is unresponsive (or was already retired for that reason).
   */
  retireIfUnresponsive?(kind: SandboxKind, session: SandboxSession): Promise<boolean>;
}

/**
 * The sandbox of one kind as the tool contract's ToolSandbox, leased on its first method call: what an environment's
 * hooks see ('general', the same sandbox the rollout's tools use).
 */
export function toolSandboxOf(sandboxes: ToolSandboxes, kind: SandboxKind): ToolSandbox {
  return lazyToolSandbox((options) => sandboxes.session(kind, options.abortSignal ? { abortSignal: options.abortSignal } : {}));
}

/** A paused or frozen agent never answers; a busy one answers a ping in milliseconds. */
export const UNRESPONSIVE_PING_TIMEOUT_MS = 5_000;

export class LazySandboxes implements ToolSandboxes {
  private readonly leases = new Map<SandboxKind, Promise<Lease>>();
  /** Sessions already found unresponsive: concurrent calls that timed out on them get the same answer. */
  private readonly retired = new WeakSet<SandboxSession>();
  /** Aborts acquires still waiting in the pool when the handle is released. */
  private readonly lifetime = new AbortController();
  private callsInFlight = 0;
  private lastUsedAtMs = Date.now();

  constructor(
    private readonly source: SandboxSource,
    /** Environment variables for this handle's general sandbox (POST /v1/sandboxes env_vars). */
    private readonly environmentVariables?: Readonly<Record<string, string>>,
  ) {}

  get released(): boolean {
    return this.lifetime.signal.aborted;
  }

  /** True when no call is running and none has started for `idleMs`. */
  idleFor(idleMs: number, nowMs = Date.now()): boolean {
    return this.callsInFlight === 0 && nowMs - this.lastUsedAtMs >= idleMs;
  }

  /** When idle expiry would release these sandboxes if nothing else happens. */
  expiresAtMs(idleMs: number): number {
    return this.lastUsedAtMs + idleMs;
  }

  /** Marks activity that does not lease anything (e.g. tools/list), so idle expiry counts from now. */
  touch(): void {
    this.lastUsedAtMs = Date.now();
  }

  /** Counts a call as running for idle expiry until the returned function is called. */
  beginCall(): () => void {
    this.callsInFlight++;
    this.touch();
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.callsInFlight--;
      this.touch();
    };
  }

  async session(kind: SandboxKind, options: { abortSignal?: AbortSignal } = {}): Promise<SandboxSession> {
    if (this.released) throw new CorralError('SBX_ERR_CLOSED', 'the sandboxes of this handle were released');
    this.touch();
    const lease = await raceAbort(this.leaseFor(kind), options.abortSignal);
    return lease.session;
  }

  private async leaseFor(kind: SandboxKind): Promise<Lease> {
    const pending = this.leases.get(kind);
    if (pending) {
      const lease = await pending;
      if (!lease.closed) return lease;
      if (this.leases.get(kind) === pending) {
        this.leases.delete(kind);
        void lease.release({ destroy: true });
      }
      // Silently swapping in a fresh sandbox would hide lost REPL and file state from the caller.
      throw new CorralError(
        'SBX_ERR_CLOSED',
        'the sandbox of this session is gone (it died or reached its lifetime) and its state with it; the next call starts a fresh one',
      );
    }
    const acquireOptions =
      this.environmentVariables && kind === 'general'
        ? { abortSignal: this.lifetime.signal, env: this.environmentVariables }
        : { abortSignal: this.lifetime.signal };
    const started = this.source.acquire(kind, acquireOptions).then(async (lease) => {
      // Released while the pool was still creating it: hand it straight back.
      if (this.released) {
        await lease.release();
        throw new CorralError('SBX_ERR_CLOSED', 'the sandboxes of this handle were released');
      }
      return lease;
    });
    this.leases.set(kind, started);
    // A failed acquire is forgotten so the next call tries again.
    started.catch(() => this.leases.get(kind) === started && this.leases.delete(kind));
    return started;
  }

  async retireIfUnresponsive(kind: SandboxKind, session: SandboxSession): Promise<boolean> {
    if (this.retired.has(session)) return true;
    const pending = this.leases.get(kind);
    const lease = pending ? await pending.catch(() => undefined) : undefined;
    // Not this handle's current sandbox (already replaced, or released): nothing left to retire.
    if (!lease || lease.session !== session) return false;
    if (await lease.health({ timeoutMs: UNRESPONSIVE_PING_TIMEOUT_MS })) return false;
    this.retired.add(session);
    if (this.leases.get(kind) === pending) this.leases.delete(kind);
    await lease.release({ destroy: true });
    return true;
  }

  /** A snapshot of the files of this handle's sandbox of `kind`, or null when none was leased (Lease.snapshot). */
  async snapshot(kind: SandboxKind, options: { abortSignal?: AbortSignal } = {}): Promise<SandboxSnapshot | null> {
    if (!this.leases.has(kind)) return null;
    const lease = await this.leaseFor(kind);
    return lease.snapshot(options);
  }

  /** Ids of the leases currently held, for logs and tests. */
  async leaseIds(): Promise<string[]> {
    const settled = await Promise.allSettled(this.leases.values());
    return settled.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value.id] : []));
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.lifetime.abort(new CorralError('SBX_ERR_CLOSED', 'handle released'));
    const pending = [...this.leases.values()];
    this.leases.clear();
    await Promise.all(
      pending.map((lease) =>
        lease.then(
          (held) => held.release(),
          () => undefined,
        ),
      ),
    );
  }
}
