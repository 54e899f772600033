/**
 * Lifecycle contract each backend implements. Only the pool calls these; tools never see them.
 * Kept free of Docker-only ideas so a Kubernetes backend (pods running the same agent) fits.
 */
import type { SandboxSession } from './session.js';
import type { FileSystemCopy } from './snapshot.js';
import type { BackendName, SandboxSpec } from './spec.js';

export interface Availability {
  ok: boolean;
  /** Why not, in words a user can act on (e.g. "no Docker daemon at /var/run/docker.sock: start dockerd"). */
  reason?: string;
  detail?: Record<string, unknown>;
}

export interface CreateOptions {
  /** Lease/sandbox id; used in labels and names. */
  sandboxId: string;
  /** Identifies this corral process: the reaper removes sandboxes whose owner is gone. */
  ownerId: string;
  /** Absolute epoch ms after which the sandbox must be gone (dead-man switch and reaper). */
  expiresAtMs: number;
  abortSignal?: AbortSignal;
}

export interface ResetReport {
  ok: boolean;
  durationMs: number;
  /** What the in-sandbox check found left over, when not ok. */
  leftovers?: string[];
}

/** A live sandbox as the pool sees it. destroy() is idempotent. */
export interface SandboxHandle {
  readonly session: SandboxSession;
  /** True once the sandbox died or was destroyed. */
  readonly closed: boolean;
  /** Present exactly when the session lists 'fork': snapshot this sandbox's files, or start a fresh one from a snapshot. */
  readonly fileSystem?: FileSystemCopy;
  /** Cheap liveness probe: resolves false instead of throwing. */
  health(options?: { abortSignal?: AbortSignal; timeoutMs?: number }): Promise<boolean>;
  /** Kill every process, wipe workspace and /tmp, restart REPLs, then verify from inside. */
  reset(options?: { abortSignal?: AbortSignal; timeoutMs?: number }): Promise<ResetReport>;
  destroy(): Promise<void>;
  /** Called once when the sandbox dies on its own (killed, OOM, stream closed). */
  onClose(listener: (reason: Error) => void): void;
}

export interface SandboxProvider {
  readonly name: BackendName;
  available(): Promise<Availability>;
  /** Creates and waits until the sandbox answers. Throws SBX_ERR_UNAVAILABLE / POOL_ERR_CREATE_FAILED. */
  create(spec: SandboxSpec, options: CreateOptions): Promise<SandboxHandle>;
  /** Removes every sandbox this backend created whose owner is not alive or whose expiry passed; returns the count. */
  cleanup(options: { ownerAlive: (ownerId: string) => boolean; all?: boolean }): Promise<number>;
  /** Releases backend resources (connections); does not destroy sandboxes. */
  close(): Promise<void>;
}
