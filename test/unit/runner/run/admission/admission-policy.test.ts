import { describe, expect, it } from 'vitest';
import { AdmissionPolicy } from '../../../../../src/runner/run/admission/admission-policy.js';
import type { LoadSignal } from '../../../../../src/runner/run/admission/load-signals.js';

const ok = (startedAtMs: number, latencyMs = 10): LoadSignal => ({ kind: 'model-call', outcome: 'ok', startedAtMs, latencyMs });
const overloaded = (startedAtMs: number): LoadSignal => ({ kind: 'model-call', outcome: 'overloaded', startedAtMs, latencyMs: 1 });

/**
 * A fluid model of a run against an endpoint: each round trip, `level` rollouts are in flight and each makes one call,
 * answered by `answer(callIndex)` (the call's place among those in flight). Returns the level after each round trip
 * and the number of 429s. The clock advances 10 ms per round trip.
 */
function simulate(policy: AdmissionPolicy, rounds: number, answer: (callIndex: number) => 'ok' | 'overloaded'): { levels: number[]; overloaded: number } {
  const levels: number[] = [];
  let nowMs = 0;
  let overloadedCalls = 0;
  for (let round = 0; round < rounds; round++) {
    const inFlight = policy.level;
    const startedAtMs = nowMs;
    nowMs += 10;
    for (let call = 0; call < inFlight; call++) {
      const outcome = answer(call);
      if (outcome === 'overloaded') overloadedCalls++;
      // A slot a growing level opens is filled at once (the driver has rollouts queued).
      if (outcome === 'ok') policy.observe(ok(startedAtMs), Math.max(inFlight, policy.level), nowMs);
      else policy.observe(overloaded(startedAtMs), inFlight, nowMs);
    }
    levels.push(policy.level);
  }
  return { levels, overloaded: overloadedCalls };
}

/** Round trips on a healthy endpoint after `fromMs`: each, `level` rollouts in flight make one successful call. Returns the level after each. */
function healthyRounds(policy: AdmissionPolicy, rounds: number, fromMs: number): number[] {
  const levels: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const inFlight = policy.level;
    const startedAtMs = fromMs + round * 10;
    for (let call = 0; call < inFlight; call++) policy.observe(ok(startedAtMs), inFlight, startedAtMs + 10);
    levels.push(policy.level);
  }
  return levels;
}

describe('AdmissionPolicy', () => {
  it('ramps up from a few rollouts, doubling per round trip, and stops at the ceiling on a healthy endpoint', () => {
    const policy = new AdmissionPolicy({ maxLevel: 256 });
    expect(policy.level).toBe(4);
    const { levels } = simulate(policy, 12, () => 'ok');
    expect(levels.slice(0, 6)).toEqual([8, 16, 32, 64, 128, 256]);
    expect(levels.at(-1)).toBe(256);
    expect(policy.phase).toBe('ramp');
  });

  it('does not grow a level the run does not use', () => {
    const policy = new AdmissionPolicy({ maxLevel: 256, initialLevel: 16 });
    for (let call = 0; call < 100; call++) policy.observe(ok(0), 3, 1);
    expect(policy.level).toBe(16);
  });

  it('backs off multiplicatively on a 429, once for the calls sent at the old level', () => {
    const policy = new AdmissionPolicy({ maxLevel: 256, initialLevel: 64 });
    expect(policy.observe(overloaded(0), 64, 5)).toBe(true);
    expect(policy.level).toBe(44);
    expect(policy.phase).toBe('steady');
    expect(policy.lastReason).toBe('overload');
    // The same burst's 429s on the retries of that rollout: sent before the cut, or while the 64 admitted rollouts drain.
    for (let call = 0; call < 20; call++) policy.observe(overloaded(1), 64, 6, true);
    policy.observe(overloaded(7), 60, 8, true);
    expect(policy.level).toBe(44);
    expect(policy.cuts).toBe(1);
    // Sent after the cut, at the new level: the endpoint is still overloaded.
    policy.observe(overloaded(9), 44, 10);
    expect(policy.level).toBe(31);
  });

  it('does not grow back before a cut has taken effect: the calls of rollouts admitted above the new level prove nothing', () => {
    const policy = new AdmissionPolicy({ maxLevel: 256, initialLevel: 80 });
    policy.observe(overloaded(0), 80, 5);
    expect(policy.level).toBe(56);
    // Calls sent after the cut by rollouts admitted before it (80 still in flight, draining towards 56) all succeed.
    for (let call = 0; call < 60; call++) policy.observe(ok(6 + call), 80 - Math.floor(call / 3), 7 + call);
    expect(policy.level).toBe(56);
    // Once drained to the level, its successes count again.
    for (let call = 0; call < 56; call++) policy.observe(ok(100), 56, 200);
    expect(policy.level).toBeGreaterThan(56);
  });

  it('returns to just under the limit a cut found, holds there 8 round trips, then probes past it by one per round trip', () => {
    const policy = new AdmissionPolicy({ maxLevel: 256, initialLevel: 50 });
    policy.observe(overloaded(0), 50, 1);
    expect(policy.level).toBe(35);
    const levels = healthyRounds(policy, 20, 10);
    // Half the gap per round trip back to 49, then a hold: each probe past a limit that still holds costs a cut.
    expect(levels.slice(0, 6)).toEqual([40, 44, 46, 47, 48, 49]);
    expect(levels.filter((level) => level === 49)).toHaveLength(9);
    expect(levels.slice(14, 18)).toEqual([50, 51, 52, 53]);
  });

  it('holds twice as long after a probe that met the limit where the last cut found it', () => {
    const policy = new AdmissionPolicy({ maxLevel: 256, initialLevel: 50 });
    policy.observe(overloaded(0), 50, 1);
    // Back to 49 and held 8 round trips, then the probe reaches 50 and is refused there again.
    const first = healthyRounds(policy, 15, 10);
    expect(first.at(-1)).toBe(50);
    policy.observe(overloaded(200), 50, 201);
    expect(policy.level).toBe(35);
    const second = healthyRounds(policy, 30, 300);
    expect(first.filter((level) => level === 49)).toHaveLength(9);
    expect(second.filter((level) => level === 49)).toHaveLength(17);
  });

  it('sizes a cut from what the endpoint took: each other rollout refused in the burst lowers the remembered limit, and the level follows', () => {
    // The ramp overshot: 80 rollouts in flight when the first 429 came, then 31 more rollouts refused in the same burst.
    const policy = new AdmissionPolicy({ maxLevel: 256, initialLevel: 80 });
    policy.observe(overloaded(0), 80, 1);
    expect(policy.level).toBe(56);
    for (let refusal = 0; refusal < 31; refusal++) policy.observe(overloaded(0), 80, 2);
    // Their retries, refused again in the same burst, say nothing new.
    for (let retry = 0; retry < 31; retry++) policy.observe(overloaded(3), 80, 4, true);
    // The endpoint took 80 - 32 = 48 and refused the 49th: x 0.7 of 49, one cut (not three, a round trip apart, down from 80).
    expect(policy.level).toBe(34);
    expect(policy.cuts).toBe(1);
    // The level climbs back just under what the endpoint took and holds there, instead of climbing towards 80.
    const levels = healthyRounds(policy, 10, 10);
    expect(Math.max(...levels)).toBe(48);
    expect(levels.at(-1)).toBe(48);
  });

  it('converges just under an endpoint that answers 429 above 48 in flight, without growing far past it again', () => {
    const policy = new AdmissionPolicy({ maxLevel: 256 });
    const { levels, overloaded: rateLimited } = simulate(policy, 400, (callIndex) => (callIndex >= 48 ? 'overloaded' : 'ok'));
    const settled = levels.slice(100);
    const mean = settled.reduce((sum, level) => sum + level, 0) / settled.length;
    expect(mean).toBeGreaterThan(42);
    expect(Math.max(...settled)).toBeLessThanOrEqual(50);
    // A 429 now and then as it probes (and the ramp's overshoot), not a steady share of the calls.
    const calls = levels.reduce((sum, level) => sum + level, 0);
    expect(rateLimited / calls).toBeLessThan(0.01);
  });

  it('treats latency well above its baseline as congestion: a gentle cut and no growth', () => {
    const policy = new AdmissionPolicy({ maxLevel: 256, initialLevel: 32 });
    for (let call = 0; call < 10; call++) policy.observe(ok(call, 10), 32, call + 1);
    const level = policy.level;
    expect(level).toBeGreaterThan(32);
    // Latency climbs to 20x the baseline: the level stops growing and is cut by the congestion factor.
    let nowMs = 100;
    for (let call = 0; call < 30; call++) policy.observe(ok(nowMs, 200), policy.level, ++nowMs);
    expect(policy.lastReason).toBe('latency');
    expect(policy.level).toBeLessThan(level);
    expect(policy.latency.baselineMs).toBeCloseTo(10);
  });

  it('ignores latency that is high relative to a tiny baseline but under the absolute floor', () => {
    const policy = new AdmissionPolicy({ maxLevel: 64, initialLevel: 8 });
    for (let call = 0; call < 200; call++) policy.observe(ok(call, call < 10 ? 1 : 20), policy.level, call + 1);
    expect(policy.level).toBe(64);
  });

  it('cuts on long sandbox acquire waits, a queueing model server and memory pressure, not on short waits', () => {
    const signals: [LoadSignal, string][] = [
      [{ kind: 'sandbox-wait', startedAtMs: 0, waitMs: 5_000 }, 'sandbox-wait'],
      [{ kind: 'server-load', running: 40, waiting: 12, kvCacheUsage: 0.5 }, 'server-queue'],
      [{ kind: 'server-load', running: 40, waiting: 0, kvCacheUsage: 0.99 }, 'server-queue'],
      [{ kind: 'memory-pressure', freeFraction: 0.01 }, 'memory'],
    ];
    for (const [signal, reason] of signals) {
      const policy = new AdmissionPolicy({ maxLevel: 256, initialLevel: 100 });
      expect(policy.observe(signal, 100, 1), reason).toBe(true);
      expect(policy.lastReason).toBe(reason);
      expect(policy.level).toBeLessThan(100);
    }
    const calm = new AdmissionPolicy({ maxLevel: 256, initialLevel: 100 });
    expect(calm.observe({ kind: 'sandbox-wait', startedAtMs: 0, waitMs: 20 }, 100, 1)).toBe(false);
    expect(calm.observe({ kind: 'server-load', running: 80, waiting: 0, kvCacheUsage: 0.6 }, 100, 1)).toBe(false);
  });

  it('clocks the ramp by finished rollouts when rollouts make no model calls, never by those that did', () => {
    const policy = new AdmissionPolicy({ maxLevel: 16 });
    for (let done = 0; done < 4; done++) policy.observe({ kind: 'rollout-done', modelCalls: true }, 4, 1);
    expect(policy.level).toBe(4);
    for (let done = 0; done < 40; done++) policy.observe({ kind: 'rollout-done', modelCalls: false }, policy.level, 1);
    expect(policy.level).toBe(16);
  });

  it('never goes below the floor or above the ceiling', () => {
    const policy = new AdmissionPolicy({ maxLevel: 8, minLevel: 2, initialLevel: 2 });
    for (let call = 0; call < 10; call++) policy.observe(overloaded(call * 10), 2, call * 10 + 1);
    expect(policy.level).toBe(2);
    simulate(policy, 100, () => 'ok');
    expect(policy.level).toBe(8);
  });
});
