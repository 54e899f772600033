import { availableParallelism } from 'node:os';
import type { BackendName } from '../spec.js';
import { DEFAULT_ACQUIRE_TIMEOUT_MS, DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_POOL_MAX } from '../../core/sandbox-defaults.js';

/** Pool limits. Defaults derive from the host so they are sane on a 2-core machine and scale on bigger ones. */
export interface PoolOptions {
  /** Warm sandboxes kept ready per spec. */
  minIdle: number;
  /** Most sandboxes (idle + leased + being created) per spec. */
  max: number;
  /** How long acquire() waits in the FIFO queue before POOL_ERR_ACQUIRE_TIMEOUT. */
  acquireTimeoutMs: number;
  /** Concurrent creates per backend: bounds the create rate (Docker slows down past a few in parallel). */
  createConcurrency: Record<BackendName, number>;
  /**
   * Creates started per second per backend (0: no limit), spaced evenly: a burst of a thousand rollouts never asks
   * dockerd for hundreds of containers at once (it dropped `docker stats` streams at 200 held in the sandbox bench).
   */
  createRatePerSecond: Record<BackendName, number>;
  /** Idle sandboxes are probed this often; unhealthy ones are replaced. 0 disables. */
  healthIntervalMs: number;
  /** The reaper removes orphaned sandboxes of dead owners this often. 0 disables. */
  reapIntervalMs: number;
  /** Idle sandboxes above minIdle are destroyed once idle this long, so a burst's leftovers do not linger. 0 disables. */
  idleTimeoutMs: number;
  /** After a failed create, wait this long before refilling warm sandboxes for that spec. */
  createBackoffMs: number;
}

export function defaultPoolOptions(): PoolOptions {
  const cpus = availableParallelism();
  return {
    minIdle: 0,
    max: DEFAULT_POOL_MAX,
    acquireTimeoutMs: DEFAULT_ACQUIRE_TIMEOUT_MS,
    createConcurrency: { docker: Math.max(4, cpus * 2), process: Math.max(4, cpus * 2), isolate: Math.max(8, cpus * 4) },
    createRatePerSecond: { docker: 20, process: 200, isolate: 0 },
    healthIntervalMs: 30_000,
    reapIntervalMs: 60_000,
    createBackoffMs: 1_000,
    idleTimeoutMs: DEFAULT_IDLE_TIMEOUT_MS,
  };
}
