import { describe, expect, it } from 'vitest';
import { abortableDelay, backoffDelayMs } from '../../../src/core/backoff.js';

describe('backoffDelayMs', () => {
  const policy = { baseMs: 100, maxMs: 1_000 };

  it('doubles per retry up to the ceiling, with half of it jittered', () => {
    expect([0, 1, 2, 3, 4, 10].map((retry) => backoffDelayMs(retry, policy, () => 1))).toEqual([100, 200, 400, 800, 1_000, 1_000]);
    expect([0, 1, 4].map((retry) => backoffDelayMs(retry, policy, () => 0))).toEqual([50, 100, 500]);
  });
});

describe('abortableDelay', () => {
  it('resolves after the delay', async () => {
    await expect(abortableDelay(1, new AbortController().signal)).resolves.toBeUndefined();
  });

  it('rejects with ERR_ABORTED when the signal fires, or at once when it already has', async () => {
    // Ten-minute delays: within the test's timeout only the abort can settle them, so no clock is read here.
    const controller = new AbortController();
    const delay = abortableDelay(600_000, controller.signal);
    setImmediate(() => controller.abort());
    await expect(delay).rejects.toMatchObject({ code: 'ERR_ABORTED' });
    await expect(abortableDelay(600_000, controller.signal)).rejects.toMatchObject({ code: 'ERR_ABORTED' });
  });
});
