import type { SandboxHandle } from '../provider.js';
import type { SandboxSpec } from '../spec.js';

export interface Waiter {
  resolve: (handle: SandboxHandle) => void;
  reject: (error: Error) => void;
  enqueuedAtMs: number;
}

export interface IdleSandbox {
  handle: SandboxHandle;
  sandboxId: string;
  expiresAtMs: number;
  /** Epoch ms when it became idle: idle trim destroys those above minIdle that waited longer than idleTimeoutMs. */
  idleSinceMs: number;
}

/** Everything the pool tracks for one spec hash. */
export class SpecBucket {
  readonly idle: IdleSandbox[] = [];
  readonly waiters: Waiter[] = [];
  leased = 0;
  creating = 0;
  resetting = 0;
  createdTotal = 0;
  destroyedTotal = 0;
  createFailuresTotal = 0;
  resetsTotal = 0;
  resetFailuresTotal = 0;
  idleTrimmedTotal = 0;
  backoffUntilMs = 0;
  minIdle: number;

  constructor(
    readonly hash: string,
    readonly spec: SandboxSpec,
    minIdle: number,
  ) {
    this.minIdle = minIdle;
  }

  get total(): number {
    return this.idle.length + this.leased + this.creating + this.resetting;
  }
}

export interface BucketStats {
  specHash: string;
  backend: SandboxSpec['backend'];
  idle: number;
  leased: number;
  creating: number;
  resetting: number;
  waiting: number;
  createdTotal: number;
  destroyedTotal: number;
  createFailuresTotal: number;
  resetsTotal: number;
  resetFailuresTotal: number;
  /** Idle sandboxes above minIdle destroyed after idleTimeoutMs. */
  idleTrimmedTotal: number;
}

export function bucketStats(bucket: SpecBucket): BucketStats {
  return {
    specHash: bucket.hash,
    backend: bucket.spec.backend,
    idle: bucket.idle.length,
    leased: bucket.leased,
    creating: bucket.creating,
    resetting: bucket.resetting,
    waiting: bucket.waiters.length,
    createdTotal: bucket.createdTotal,
    destroyedTotal: bucket.destroyedTotal,
    createFailuresTotal: bucket.createFailuresTotal,
    resetsTotal: bucket.resetsTotal,
    resetFailuresTotal: bucket.resetFailuresTotal,
    idleTrimmedTotal: bucket.idleTrimmedTotal,
  };
}
