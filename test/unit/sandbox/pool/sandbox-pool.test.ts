import { describe, expect, it } from 'vitest';
import { CorralError } from '../../../../src/core/errors.js';
import { SandboxPool } from '../../../../src/sandbox/pool/sandbox-pool.js';
import { FakeProvider } from '../../../helpers/fake-provider.js';

function makePool(options: ConstructorParameters<typeof SandboxPool>[0] = {}) {
  const provider = new FakeProvider();
  const pool = new SandboxPool({ healthIntervalMs: 0, reapIntervalMs: 0, createBackoffMs: 0, ...options }, { resolveProvider: async () => provider });
  return { pool, provider };
}

describe('SandboxPool', () => {
  it('hands out distinct sandboxes and destroys each on release by default', async () => {
    const { pool, provider } = makePool();
    const first = await pool.acquire();
    const second = await pool.acquire();
    expect(first.session.id).not.toBe(second.session.id);
    await first.release();
    await first.release(); // idempotent
    await pool.settle();
    expect(provider.created[0]!.destroyCount).toBe(1);
    await second.release();
    await pool.close();
  });

  it('keeps minIdle warm and replaces a released sandbox', async () => {
    const { pool, provider } = makePool({ minIdle: 2 });
    await pool.warm({}, 2);
    expect(pool.stats()[0]).toMatchObject({ idle: 2 });
    const lease = await pool.acquire();
    await lease.release();
    await pool.settle();
    await pool.warm({}, 2);
    expect(pool.stats()[0]).toMatchObject({ idle: 2, leased: 0 });
    // The acquire refilled the warm set at once; the release destroyed its sandbox without needing another.
    expect(provider.created.length).toBe(3);
    expect(provider.created[0]!.destroyCount + provider.created[1]!.destroyCount).toBe(1);
    await pool.close();
  });

  it('queues waiters FIFO when max is reached and times out with a typed error', async () => {
    const { pool } = makePool({ max: 1 });
    const holder = await pool.acquire();
    const order: string[] = [];
    const a = pool.acquire().then((lease) => (order.push('a'), lease));
    const b = pool.acquire().then((lease) => (order.push('b'), lease));
    await holder.release();
    const leaseA = await a;
    await leaseA.release();
    const leaseB = await b;
    expect(order).toEqual(['a', 'b']);
    const timedOut = pool.acquire({}, { timeoutMs: 20 });
    await expect(timedOut).rejects.toSatisfy((error) => CorralError.hasCode(error, 'POOL_ERR_ACQUIRE_TIMEOUT'));
    await leaseB.release();
    expect(pool.stats()[0]!.waiting).toBe(0);
    await pool.close();
  });

  it('cancels a waiting acquire through its AbortSignal', async () => {
    const { pool } = makePool({ max: 1 });
    const holder = await pool.acquire();
    const controller = new AbortController();
    const waiting = pool.acquire({}, { abortSignal: controller.signal });
    controller.abort();
    await expect(waiting).rejects.toSatisfy((error) => CorralError.hasCode(error, 'ERR_ABORTED'));
    expect(pool.stats()[0]!.waiting).toBe(0);
    await holder.release();
    await pool.close();
  });

  it('reuses a sandbox after a verified reset, and destroys one whose reset fails', async () => {
    const { pool, provider } = makePool();
    const spec = { reuse: 'reset' as const };
    const first = await pool.acquire(spec);
    const id = first.session.id;
    await first.release();
    await pool.settle();
    const second = await pool.acquire(spec);
    expect(second.session.id).toBe(id);
    provider.created[0]!.resetOk = false;
    await second.release();
    await pool.settle();
    expect(provider.created[0]!.destroyCount).toBe(1);
    expect(pool.stats()[0]).toMatchObject({ resetsTotal: 1, resetFailuresTotal: 1 });
    await pool.close();
  });

  it('gives the create error to the waiter, then recovers', async () => {
    const { pool, provider } = makePool();
    provider.failNextCreates = 1;
    await expect(pool.acquire()).rejects.toSatisfy((error) => CorralError.hasCode(error, 'SBX_ERR_UNAVAILABLE'));
    const lease = await pool.acquire();
    expect(lease.session.id).toMatch(/^sbx_/);
    await lease.release();
    await pool.close();
  });

  it('drops an idle sandbox that dies and marks a leased one closed', async () => {
    const { pool, provider } = makePool({ minIdle: 1 });
    await pool.warm({}, 1);
    provider.created[0]!.die();
    await pool.settle();
    await pool.warm({}, 1);
    const lease = await pool.acquire();
    expect(lease.session.id).not.toBe(provider.created[0]!.sandboxId);
    provider.created[1]!.die();
    expect(lease.closed).toBe(true);
    await lease.release();
    await pool.close();
  });

  it('never gives one sandbox to two leases under concurrent acquire/release', async () => {
    const { pool, provider } = makePool({ max: 4, minIdle: 2 });
    provider.createDelayMs = 1;
    const held = new Set<string>();
    let overlaps = 0;
    await Promise.all(
      Array.from({ length: 40 }, async () => {
        const lease = await pool.acquire({ reuse: 'reset' });
        if (held.has(lease.session.id)) overlaps++;
        held.add(lease.session.id);
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
        held.delete(lease.session.id);
        await lease.release();
      }),
    );
    expect(overlaps).toBe(0);
    expect(pool.stats()[0]!.createdTotal).toBeLessThanOrEqual(4);
    await pool.close();
  });

  it('close() rejects waiters and destroys every sandbox, leased ones included', async () => {
    const { pool, provider } = makePool({ max: 1 });
    const lease = await pool.acquire();
    const waiting = pool.acquire();
    await pool.close();
    await expect(waiting).rejects.toSatisfy((error) => CorralError.hasCode(error, 'POOL_ERR_CLOSED'));
    expect(provider.created.every((handle) => handle.destroyCount >= 1)).toBe(true);
    await lease.release();
    await expect(pool.acquire()).rejects.toSatisfy((error) => CorralError.hasCode(error, 'POOL_ERR_CLOSED'));
  });

  it('forgets empty buckets of one-off specs but keeps those still in use', async () => {
    const { pool } = makePool();
    const held = await pool.acquire({ env: { ROLLOUT: 'held' } });
    for (let index = 0; index < 200; index++) {
      const lease = await pool.acquire({ env: { ROLLOUT: String(index) } });
      await lease.release();
      await pool.settle();
    }
    const stats = pool.stats();
    expect(stats.length).toBeLessThanOrEqual(65);
    expect(stats.filter((bucket) => bucket.leased === 1)).toHaveLength(1);
    await held.release();
    await pool.close();
  });

  it('supports await using for release', async () => {
    const { pool, provider } = makePool();
    {
      await using lease = await pool.acquire();
      expect(lease.closed).toBe(false);
    }
    await pool.settle();
    expect(provider.created[0]!.destroyCount).toBe(1);
    await pool.close();
  });
});
