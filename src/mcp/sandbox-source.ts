/**
 * Where a tool server gets sandboxes from. Tools name the capability they use; a capability maps to a
 * sandbox kind, and each kind to a sandbox spec: JavaScript runs in an isolate, everything else (python,
 * exec, files) in a docker or process sandbox. So one environment may hold up to two leases.
 */
import type { Lease } from '../sandbox/lease.js';
import type { SandboxPool } from '../sandbox/pool/sandbox-pool.js';
import type { Capability } from '../sandbox/session.js';
import type { SandboxSnapshot } from '../sandbox/snapshot.js';
import type { SandboxSpecInput } from '../sandbox/spec.js';

export type SandboxKind = 'general' | 'javascript';

export function sandboxKindFor(capability: Capability | undefined): SandboxKind {
  return capability === 'javascript' ? 'javascript' : 'general';
}

export interface SandboxSource {
  /**
   * Leases a fresh sandbox of this kind; `env` adds environment variables to its spec (a spec of its own, so such
   * sandboxes are never shared with other handles); `from` starts it from a snapshot's files (a fork). Throws
   * infrastructure CorralErrors (POOL_ERR_*, SBX_ERR_UNAVAILABLE, SBX_ERR_UNSUPPORTED for `from` where forks cannot be).
   */
  acquire(kind: SandboxKind, options?: { abortSignal?: AbortSignal; env?: Readonly<Record<string, string>>; from?: SandboxSnapshot }): Promise<Lease>;
}

/** The part of the pool the serving layers use: leasing, and counts for /metrics. */
export type SandboxPoolView = Pick<SandboxPool, 'acquire' | 'stats'>;

export type SandboxSpecsByKind = Readonly<Record<SandboxKind, SandboxSpecInput>>;

/** The source's general sandbox starts from `snapshot` (a fork of the sandbox it was taken from); other kinds as before. */
export function forkedSandboxSource(source: SandboxSource, snapshot: SandboxSnapshot): SandboxSource {
  return { acquire: (kind, options = {}) => source.acquire(kind, kind === 'general' ? { ...options, from: snapshot } : options) };
}

/** A SandboxSource over the pool, with one spec per kind (the CLI resolves 'auto' to docker or process). */
export function poolSandboxSource(pool: Pick<SandboxPool, 'acquire'>, specs: SandboxSpecsByKind): SandboxSource {
  return {
    acquire: (kind, options = {}) => {
      const spec = options.env ? { ...specs[kind], env: { ...specs[kind].env, ...options.env } } : specs[kind];
      return pool.acquire(spec, { ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}), ...(options.from ? { from: options.from } : {}) });
    },
  };
}
