// What the pool offers admission control: a create rate per backend, and an event for every acquire that waited.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SandboxPool, type PoolAcquireEvent } from '../../../../src/sandbox/pool/sandbox-pool.js';
import type { CreateOptions, SandboxHandle } from '../../../../src/sandbox/provider.js';
import type { SandboxSpec } from '../../../../src/sandbox/spec.js';
import { FakeProvider } from '../../../helpers/fake-provider.js';

/** Records the (fake) clock at each create. */
class TimedProvider extends FakeProvider {
  readonly startedAt: number[] = [];
  override async create(spec: SandboxSpec, options: CreateOptions): Promise<SandboxHandle> {
    this.startedAt.push(Date.now());
    return super.create(spec, options);
  }
}

const quiet = { healthIntervalMs: 0, reapIntervalMs: 0, createBackoffMs: 0, idleTimeoutMs: 0 };

afterEach(() => void vi.useRealTimers());

describe('SandboxPool and admission control', () => {
  it('starts creates no faster than the backend rate, even when a burst asks for many at once', async () => {
    vi.useFakeTimers();
    const provider = new TimedProvider();
    const pool = new SandboxPool(
      { ...quiet, max: 50, createConcurrency: { docker: 4, process: 50, isolate: 8 }, createRatePerSecond: { docker: 20, process: 10, isolate: 0 } },
      { resolveProvider: async () => provider },
    );
    const leases = Array.from({ length: 8 }, () => pool.acquire({ backend: 'process' }));
    await vi.advanceTimersByTimeAsync(2_000);
    await Promise.all(leases);
    expect(provider.startedAt).toHaveLength(8);
    const gaps = provider.startedAt.slice(1).map((at, index) => at - provider.startedAt[index]!);
    // 10 per second: one create every 100 ms, never two in one interval.
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(100);
    for (const lease of await Promise.all(leases)) await lease.release();
    vi.useRealTimers();
    await pool.close();
  });

  it('reports each acquire that waited, and whether it waited because the pool was at its max', async () => {
    const provider = new FakeProvider();
    const pool = new SandboxPool({ ...quiet, max: 1 }, { resolveProvider: async () => provider });
    const events: PoolAcquireEvent[] = [];
    const unsubscribe = pool.onAcquireWait((event) => events.push(event));
    const first = await pool.acquire({ backend: 'process' });
    const second = pool.acquire({ backend: 'process' });
    await first.release();
    await (await second).release();
    unsubscribe();
    await (await pool.acquire({ backend: 'process' })).release();
    expect(events.map(({ backend, atCapacity }) => ({ backend, atCapacity }))).toEqual([
      { backend: 'process', atCapacity: false },
      { backend: 'process', atCapacity: true },
    ]);
    expect(events.every((event) => event.waitMs >= 0 && event.specHash.length > 0)).toBe(true);
    await pool.close();
  });
});
