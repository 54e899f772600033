import { afterEach, describe, expect, it, vi } from 'vitest';
import { abortableDelay, backoffDelayMs } from '../../src/core/backoff.js';

describe('backoffDelayMs', () => {
  const policy = { baseMs: 100, maxMs: 1_000 };

  it('doubles per retry up to the ceiling, with half of it jittered', () => {
    expect([0, 1, 2, 3, 4, 10].map((retry) => backoffDelayMs(retry, policy, () => 1))).toEqual([100, 200, 400, 800, 1_000, 1_000]);
    expect([0, 1, 4].map((retry) => backoffDelayMs(retry, policy, () => 0))).toEqual([50, 100, 500]);
  });
});

// On vitest's fake clock: what settles the delay, and when, is then decided by the test, not by a busy machine.
describe('abortableDelay', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** 'pending' until the promise settles, then 'resolved' or the rejection. */
  function watch(promise: Promise<void>): { state: unknown } {
    const watched: { state: unknown } = { state: 'pending' };
    promise.then(
      () => (watched.state = 'resolved'),
      (error: unknown) => (watched.state = error),
    );
    return watched;
  }

  it('resolves once the delay has passed, not a millisecond before', async () => {
    vi.useFakeTimers();
    const delay = watch(abortableDelay(1_000, new AbortController().signal));
    await vi.advanceTimersByTimeAsync(999);
    expect(delay.state).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(delay.state).toBe('resolved');
  });

  it('rejects with ERR_ABORTED as soon as the signal fires, clearing its timer, or at once when it already has', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const delay = watch(abortableDelay(10_000, controller.signal));
    await vi.advanceTimersByTimeAsync(10);
    expect(delay.state).toBe('pending');
    controller.abort();
    // 9,990 ms of the delay are still unspent on the fake clock: only the abort can have settled it.
    await vi.advanceTimersByTimeAsync(0);
    expect(delay.state).toMatchObject({ code: 'ERR_ABORTED' });
    expect(vi.getTimerCount()).toBe(0);
    const late = watch(abortableDelay(10_000, controller.signal));
    await vi.advanceTimersByTimeAsync(0);
    expect(late.state).toMatchObject({ code: 'ERR_ABORTED' });
  });
});
