/**
 * The warm pool. Keyed by spec hash; keeps `minIdle` ready, caps `max`, queues waiters FIFO with a timeout,
 * bounds the create rate per backend with a queue, and never hands one sandbox to two leases: a released
 * sandbox is destroyed and replaced, or (spec.reuse 'reset') reset and verified clean before reuse.
 */
import PQueue from 'p-queue';
import { CorralError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { OWNER_ID, isOwnerAlive } from '../../core/owner.js';
import type { Lease } from '../lease.js';
import type { SandboxHandle, SandboxProvider } from '../provider.js';
import { loadProvider } from '../registry.js';
import { fileSystemCopyOf } from '../fork.js';
import type { ForkOptions } from '../lease.js';
import type { SandboxSnapshot } from '../snapshot.js';
import { type BackendName, type SandboxSpec, type SandboxSpecInput, parseSandboxSpec, specHash } from '../spec.js';
import { CreateSpacing } from './create-spacing.js';
import { PoolLease } from './pool-lease.js';
import { type PoolOptions, defaultPoolOptions } from './pool-options.js';
import { type BucketStats, SpecBucket, bucketStats } from './spec-bucket.js';
import { enqueueWaiter } from './waiter-queue.js';

export interface SandboxPoolDependencies {
  resolveProvider?: (name: BackendName) => Promise<SandboxProvider>;
  ownerId?: string;
}

/** One acquire that had to wait for a sandbox to be created or freed (an idle one is handed out at once, unreported). */
export interface PoolAcquireEvent {
  backend: BackendName;
  specHash: string;
  /** performance.now() when the acquire began, and how long it waited. */
  startedAtMs: number;
  waitMs: number;
  /** The spec's sandboxes were at the pool's max when it began: it waited for another rollout to release one. */
  atCapacity: boolean;
}

export interface AcquireOptions {
  abortSignal?: AbortSignal;
  /** Overrides the pool's acquireTimeoutMs. */
  timeoutMs?: number;
  /** Start from this snapshot (Lease.snapshot of a sandbox of the same backend): the files are copied in before the lease is handed out. */
  from?: SandboxSnapshot;
}

interface LiveSandbox {
  sandboxId: string;
  expiresAtMs: number;
  bucket: SpecBucket;
}

/** Idle sandboxes this close to their expiry are retired instead of handed out. */
const EXPIRY_MARGIN_MS = 5_000;

/**
 * Empty buckets kept for their stats before the pool forgets them. Specs that are unique per rollout (a CLI agent's
 * per-rollout socket mount, per-example images) would otherwise leave one bucket per rollout for the pool's life.
 */
const RETAINED_EMPTY_BUCKETS = 64;

export class SandboxPool {
  readonly options: Readonly<PoolOptions>;
  readonly ownerId: string;
  private readonly buckets = new Map<string, SpecBucket>();
  private readonly createQueues = new Map<BackendName, PQueue>();
  private readonly createSpacings = new Map<BackendName, CreateSpacing>();
  private readonly providers = new Map<BackendName, Promise<SandboxProvider>>();
  private readonly live = new Map<SandboxHandle, LiveSandbox>();
  private readonly background = new Set<Promise<unknown>>();
  private readonly resolveProvider: (name: BackendName) => Promise<SandboxProvider>;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly acquireListeners = new Set<(event: PoolAcquireEvent) => void>();
  private closed = false;

  constructor(options: Partial<PoolOptions> = {}, dependencies: SandboxPoolDependencies = {}) {
    this.options = Object.freeze({ ...defaultPoolOptions(), ...options });
    this.ownerId = dependencies.ownerId ?? OWNER_ID;
    this.resolveProvider = dependencies.resolveProvider ?? ((name) => loadProvider(name));
    if (this.options.healthIntervalMs > 0) this.every(this.options.healthIntervalMs, () => this.checkIdleHealth());
    if (this.options.reapIntervalMs > 0) this.every(this.options.reapIntervalMs, () => this.reapOrphans());
    // Checked at a quarter of the timeout, so an idle sandbox outlives it by at most a quarter.
    if (this.options.idleTimeoutMs > 0) this.every(Math.max(10, Math.min(this.options.idleTimeoutMs / 4, 15_000)), async () => this.trimIdle());
  }

  /** Waits FIFO for a sandbox matching the spec. Throws POOL_ERR_ACQUIRE_TIMEOUT, POOL_ERR_CLOSED, ERR_ABORTED or the create error. */
  async acquire(specInput: SandboxSpecInput | SandboxSpec = {}, options: AcquireOptions = {}): Promise<Lease> {
    if (this.closed) throw new CorralError('POOL_ERR_CLOSED', 'the sandbox pool is closed');
    const startedAt = performance.now();
    const bucket = this.bucketFor(parseSandboxSpec(specInput));
    let handle = this.takeIdle(bucket);
    if (!handle) {
      const atCapacity = bucket.total >= this.options.max;
      handle = await this.waitForSandbox(bucket, options);
      const event = { backend: bucket.spec.backend, specHash: bucket.hash, startedAtMs: startedAt, waitMs: performance.now() - startedAt, atCapacity };
      for (const listener of this.acquireListeners) listener(event);
    }
    const live = this.live.get(handle);
    const lease = new PoolLease(
      newId('lease'),
      handle,
      bucket.hash,
      live?.expiresAtMs ?? Date.now(),
      performance.now() - startedAt,
      (released, destroy) => this.release(bucket, released, destroy),
      (parent, forkOptions) => this.fork(parent, forkOptions),
    );
    if (options.from === undefined) return lease;
    try {
      await fileSystemCopyOf(handle).restore(options.from, options.abortSignal ? { abortSignal: options.abortSignal } : {});
    } catch (error) {
      await lease.release({ destroy: true }); // half filled: never handed out, never pooled again
      throw error;
    }
    return lease;
  }

  /** Lease.fork: one snapshot of the parent, then `count` acquires of its spec started from it; all or nothing. */
  async fork(parent: Lease, options: ForkOptions): Promise<Lease[]> {
    if (!Number.isInteger(options.count) || options.count < 1) {
      throw new CorralError('SBX_ERR_INVALID_ARGUMENT', `fork needs a whole number of children (1 or more), not ${options.count}`);
    }
    const bucket = this.buckets.get(parent.specHash);
    if (!bucket || parent.closed) throw new CorralError('SBX_ERR_CLOSED', `lease ${parent.id} was released or its sandbox is gone`);
    const snapshot = await parent.snapshot(options.abortSignal ? { abortSignal: options.abortSignal } : {});
    const acquireOptions: AcquireOptions = {
      from: snapshot,
      ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    };
    const settled = await Promise.allSettled(Array.from({ length: options.count }, () => this.acquire(bucket.spec, acquireOptions)));
    const children = settled.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    const failure = settled.find((outcome) => outcome.status === 'rejected');
    if (failure) {
      await Promise.all(children.map((child) => child.release({ destroy: true })));
      throw failure.reason;
    }
    return children;
  }

  /** Keeps `minIdle` sandboxes of this spec warm and resolves once they are ready. */
  async warm(specInput: SandboxSpecInput | SandboxSpec, minIdle: number, options: { timeoutMs?: number } = {}): Promise<void> {
    const bucket = this.bucketFor(parseSandboxSpec(specInput));
    bucket.minIdle = minIdle;
    this.fill(bucket);
    const deadline = Date.now() + (options.timeoutMs ?? this.options.acquireTimeoutMs);
    while (bucket.idle.length < Math.min(minIdle, this.options.max)) {
      if (Date.now() > deadline)
        throw new CorralError('POOL_ERR_ACQUIRE_TIMEOUT', `warm-up of ${minIdle} sandboxes did not finish in time`, {
          details: bucketStats(bucket) as unknown as Record<string, unknown>,
        });
      if (this.closed) throw new CorralError('POOL_ERR_CLOSED', 'the sandbox pool is closed');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** Tells `listener` about every acquire that waited (the admission controller reads these); returns the unsubscribe. */
  onAcquireWait(listener: (event: PoolAcquireEvent) => void): () => void {
    this.acquireListeners.add(listener);
    return () => this.acquireListeners.delete(listener);
  }

  stats(): BucketStats[] {
    return [...this.buckets.values()].map(bucketStats);
  }

  /** Resolves when no create, reset or destroy is in flight. */
  async settle(): Promise<void> {
    while (this.background.size > 0) await Promise.allSettled([...this.background]);
  }

  /** Removes sandboxes (of every loaded backend) left by owners that are gone, or past their expiry. */
  async reapOrphans(): Promise<number> {
    let removed = 0;
    for (const providerPromise of this.providers.values()) {
      const provider = await providerPromise;
      removed += await provider.cleanup({ ownerAlive: (owner) => owner === this.ownerId || isOwnerAlive(owner) }).catch(() => 0);
    }
    return removed;
  }

  /** Stops handing out sandboxes, rejects waiters, destroys every sandbox (idle and leased) and closes providers. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return this.settle();
    this.closed = true;
    for (const timer of this.timers) clearInterval(timer);
    for (const bucket of this.buckets.values()) {
      for (const waiter of bucket.waiters.splice(0)) waiter.reject(new CorralError('POOL_ERR_CLOSED', 'the sandbox pool closed while waiting'));
      bucket.idle.splice(0);
    }
    for (const handle of [...this.live.keys()]) this.destroy(handle);
    await Promise.all([...this.createQueues.values()].map((queue) => queue.onIdle()));
    await this.settle();
    for (const providerPromise of this.providers.values()) await (await providerPromise).close().catch(() => undefined);
  }

  provider(name: BackendName): Promise<SandboxProvider> {
    let provider = this.providers.get(name);
    if (!provider) {
      provider = this.resolveProvider(name);
      this.providers.set(name, provider);
      provider.catch(() => this.providers.delete(name));
    }
    return provider;
  }

  private bucketFor(spec: SandboxSpec): SpecBucket {
    const hash = specHash(spec);
    let bucket = this.buckets.get(hash);
    if (!bucket) {
      if (this.buckets.size >= RETAINED_EMPTY_BUCKETS) this.forgetEmptyBuckets();
      bucket = new SpecBucket(hash, spec, this.options.minIdle);
      this.buckets.set(hash, bucket);
    }
    return bucket;
  }

  /** Drops buckets with nothing in them, nothing waiting and no warm target, so their count stays bounded. */
  private forgetEmptyBuckets(): void {
    for (const [hash, bucket] of this.buckets) {
      if (bucket.total === 0 && bucket.waiters.length === 0 && bucket.minIdle === 0) this.buckets.delete(hash);
    }
  }

  private takeIdle(bucket: SpecBucket): SandboxHandle | undefined {
    while (bucket.idle.length > 0) {
      const idle = bucket.idle.pop()!;
      if (idle.handle.closed || idle.expiresAtMs - Date.now() < EXPIRY_MARGIN_MS) {
        this.destroy(idle.handle);
        continue;
      }
      bucket.leased++;
      this.fill(bucket);
      return idle.handle;
    }
    return undefined;
  }

  private waitForSandbox(bucket: SpecBucket, options: AcquireOptions): Promise<SandboxHandle> {
    const waiting = enqueueWaiter(bucket, {
      timeoutMs: options.timeoutMs ?? this.options.acquireTimeoutMs,
      ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
    });
    this.fill(bucket);
    return waiting;
  }

  /** Starts as many creates as waiters and warm targets need, within `max`. */
  private fill(bucket: SpecBucket): void {
    if (this.closed) return;
    const inBackoff = Date.now() < bucket.backoffUntilMs;
    const supply = bucket.idle.length + bucket.creating + bucket.resetting;
    const demand = bucket.waiters.length + (inBackoff ? 0 : bucket.minIdle);
    for (let missing = demand - supply; missing > 0 && bucket.total < this.options.max; missing--) this.startCreate(bucket);
  }

  private startCreate(bucket: SpecBucket): void {
    bucket.creating++;
    const sandboxId = newId('sbx');
    const expiresAtMs = Date.now() + bucket.spec.maxLifetimeMs;
    const queue = this.createQueue(bucket.spec.backend);
    const spacing = this.createSpacing(bucket.spec.backend);
    const task = queue
      .add(async () => {
        await spacing.turn();
        return (await this.provider(bucket.spec.backend)).create(bucket.spec, { sandboxId, ownerId: this.ownerId, expiresAtMs });
      })
      .then(
        (handle) => {
          bucket.creating--;
          bucket.createdTotal++;
          this.live.set(handle!, { sandboxId, expiresAtMs, bucket });
          handle!.onClose(() => this.onSandboxClosed(handle!));
          this.offer(bucket, handle!);
        },
        (error: unknown) => {
          bucket.creating--;
          bucket.createFailuresTotal++;
          bucket.backoffUntilMs = Date.now() + this.options.createBackoffMs;
          const typed = CorralError.isInstance(error)
            ? error
            : new CorralError('POOL_ERR_CREATE_FAILED', `creating a ${bucket.spec.backend} sandbox failed: ${String(error)}`, { cause: error });
          bucket.waiters[0]?.reject(typed);
          this.fill(bucket);
        },
      );
    this.track(task);
  }

  /** Gives a ready sandbox to the first waiter, or keeps it idle. */
  private offer(bucket: SpecBucket, handle: SandboxHandle): void {
    const live = this.live.get(handle);
    if (this.closed || handle.closed || !live) return this.destroy(handle);
    const waiter = bucket.waiters[0];
    if (waiter) {
      bucket.leased++;
      waiter.resolve(handle);
    } else {
      bucket.idle.push({ handle, sandboxId: live.sandboxId, expiresAtMs: live.expiresAtMs, idleSinceMs: Date.now() });
    }
    this.fill(bucket);
  }

  private async release(bucket: SpecBucket, handle: SandboxHandle, destroy: boolean): Promise<void> {
    bucket.leased--;
    if (destroy || this.closed || bucket.spec.reuse === 'destroy') {
      this.destroy(handle);
      this.fill(bucket);
      return;
    }
    bucket.resetting++;
    const reset = handle
      .reset({ timeoutMs: 10_000 })
      .catch(() => ({ ok: false }))
      .then((report) => {
        bucket.resetting--;
        if (report.ok && !handle.closed) {
          bucket.resetsTotal++;
          this.offer(bucket, handle);
        } else {
          bucket.resetFailuresTotal++;
          this.destroy(handle);
          this.fill(bucket);
        }
      });
    this.track(reset);
  }

  private onSandboxClosed(handle: SandboxHandle): void {
    const live = this.live.get(handle);
    if (!live) return;
    const index = live.bucket.idle.findIndex((idle) => idle.handle === handle);
    if (index >= 0) live.bucket.idle.splice(index, 1);
    this.destroy(handle);
    this.fill(live.bucket);
  }

  private destroy(handle: SandboxHandle): void {
    const live = this.live.get(handle);
    if (live) {
      this.live.delete(handle);
      live.bucket.destroyedTotal++;
    }
    this.track(handle.destroy().catch(() => undefined));
  }

  /**
   * Destroys idle sandboxes above the bucket's minIdle that have waited longer than idleTimeoutMs, oldest first
   * (takeIdle pops the newest, so the front of the list is the oldest). Without it a burst's leftovers stay
   * until their lifetime ends.
   */
  trimIdle(nowMs = Date.now()): void {
    for (const bucket of this.buckets.values()) {
      while (bucket.idle.length > bucket.minIdle && nowMs - bucket.idle[0]!.idleSinceMs >= this.options.idleTimeoutMs) {
        const oldest = bucket.idle.shift()!;
        bucket.idleTrimmedTotal++;
        this.destroy(oldest.handle);
      }
    }
  }

  private async checkIdleHealth(): Promise<void> {
    for (const bucket of this.buckets.values()) {
      for (const idle of [...bucket.idle]) {
        if (await idle.handle.health({ timeoutMs: 5_000 }).catch(() => false)) continue;
        const index = bucket.idle.indexOf(idle);
        if (index >= 0) bucket.idle.splice(index, 1);
        this.destroy(idle.handle);
        this.fill(bucket);
      }
    }
  }

  private createQueue(backend: BackendName): PQueue {
    let queue = this.createQueues.get(backend);
    if (!queue) {
      queue = new PQueue({ concurrency: this.options.createConcurrency[backend] });
      this.createQueues.set(backend, queue);
    }
    return queue;
  }

  private createSpacing(backend: BackendName): CreateSpacing {
    let spacing = this.createSpacings.get(backend);
    if (!spacing) {
      spacing = new CreateSpacing(this.options.createRatePerSecond[backend]);
      this.createSpacings.set(backend, spacing);
    }
    return spacing;
  }

  private track(promise: Promise<unknown>): void {
    this.background.add(promise);
    void promise.finally(() => this.background.delete(promise));
  }

  private every(intervalMs: number, task: () => Promise<unknown>): void {
    const timer = setInterval(() => this.track(task().catch(() => undefined)), intervalMs);
    timer.unref();
    this.timers.push(timer);
  }
}
