/**
 * The file-system snapshot behind fork (capability 'fork'). A snapshot is the sandbox's writable places (the
 * workspace, /tmp and /dev/shm: the root is read-only, so nothing else can differ from a fresh sandbox) as they
 * were at one moment, packed once; any number of fresh sandboxes of the same spec can start from it. Processes,
 * REPL state and open files do not carry over: a child starts with its parent's files and nothing running.
 */
import type { BackendName } from './spec.js';

export interface SandboxSnapshot {
  readonly backend: BackendName;
  /** A POSIX tar of the writable places, paths relative to the sandbox's root (workspace/..., tmp/..., dev/shm/...). */
  readonly archive: Buffer;
  readonly sizeBytes: number;
  /** When it was taken (epoch ms). */
  readonly takenAtMs: number;
}

export interface SnapshotOptions {
  abortSignal?: AbortSignal;
  /** How long packing or unpacking may take, in ms (default 120,000). */
  timeoutMs?: number;
}

/** What a backend's handle implements when it can fork (its session then lists the 'fork' capability). */
export interface FileSystemCopy {
  /** Packs the writable places as they are now. Concurrent writes by running processes may or may not be included. */
  snapshot(options?: SnapshotOptions): Promise<SandboxSnapshot>;
  /** Unpacks a snapshot of the same backend into this sandbox, which must be fresh (a new or reset one). */
  restore(snapshot: SandboxSnapshot, options?: SnapshotOptions): Promise<void>;
}
