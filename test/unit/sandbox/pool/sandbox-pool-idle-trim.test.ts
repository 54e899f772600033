/**
 * Idle trim: after a burst, idle sandboxes above minIdle are destroyed once they have been idle for
 * idleTimeoutMs; minIdle warm ones survive. Fake timers drive the pool's interval and clock.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Lease } from '../../../../src/sandbox/lease.js';
import { SandboxPool } from '../../../../src/sandbox/pool/sandbox-pool.js';
import { FakeProvider } from '../../../helpers/fake-provider.js';

const IDLE_TIMEOUT_MS = 60_000;
const BURST = 12;
const MIN_IDLE = 2;
// 'reset' returns released sandboxes to the idle list, as python-code rollouts do.
const SPEC = { reuse: 'reset' } as const;

describe('SandboxPool idle trim', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  async function afterBurst(options: { idleTimeoutMs: number }) {
    const provider = new FakeProvider();
    const pool = new SandboxPool({ healthIntervalMs: 0, reapIntervalMs: 0, createBackoffMs: 0, ...options }, { resolveProvider: async () => provider });
    await pool.warm(SPEC, MIN_IDLE);
    const leases: Lease[] = await Promise.all(Array.from({ length: BURST }, () => pool.acquire(SPEC)));
    await Promise.all(leases.map((lease) => lease.release()));
    await pool.settle();
    return { pool, provider };
  }

  it('destroys idle sandboxes above minIdle after idleTimeoutMs, keeping minIdle warm', async () => {
    const { pool, provider } = await afterBurst({ idleTimeoutMs: IDLE_TIMEOUT_MS });
    const idleAfterBurst = pool.stats()[0]!.idle;
    expect(idleAfterBurst).toBeGreaterThan(MIN_IDLE);
    expect(provider.created.filter((handle) => handle.destroyCount > 0)).toHaveLength(0);

    // Half the timeout: nothing has waited long enough yet.
    await vi.advanceTimersByTimeAsync(IDLE_TIMEOUT_MS / 2);
    expect(pool.stats()[0]!.idle).toBe(idleAfterBurst);

    await vi.advanceTimersByTimeAsync(IDLE_TIMEOUT_MS);
    await pool.settle();
    const stats = pool.stats()[0]!;
    expect(stats).toMatchObject({ idle: MIN_IDLE, idleTrimmedTotal: idleAfterBurst - MIN_IDLE, leased: 0 });
    const destroyed = provider.created.filter((handle) => handle.destroyCount > 0);
    expect(destroyed).toHaveLength(idleAfterBurst - MIN_IDLE);
    // The survivors are live, and the next acquire gets one of them rather than waiting for a create.
    const survivors = provider.created.filter((handle) => handle.destroyCount === 0).map((handle) => handle.sandboxId);
    const lease = await pool.acquire(SPEC);
    expect(survivors).toContain(lease.session.id);
    await lease.release();
    await pool.close();
  });

  it('keeps every idle sandbox when idleTimeoutMs is 0', async () => {
    const { pool } = await afterBurst({ idleTimeoutMs: 0 });
    const idleAfterBurst = pool.stats()[0]!.idle;
    await vi.advanceTimersByTimeAsync(10 * IDLE_TIMEOUT_MS);
    expect(pool.stats()[0]).toMatchObject({ idle: idleAfterBurst, idleTrimmedTotal: 0 });
    await pool.close();
  });
});
