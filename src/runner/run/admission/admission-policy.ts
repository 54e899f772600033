/**
 * The admission policy of `-c auto`: how many rollouts may be in flight, decided from load signals alone (pure: the
 * caller passes the clock, so tests drive it with a fake one). AIMD with a slow start, clocked by completions as TCP
 * is by acknowledgements:
 * - ramp: +1 per successful model call while the level is in use, so the level doubles per round trip and a run
 *   never opens hundreds of sandboxes and connections in one burst;
 * - overload (429, 503, timeouts) and memory pressure: multiplicative back-off, and the level where it happened is
 *   remembered (less one per rollout refused again in the same burst: what the endpoint actually took, and the
 *   level follows to x 0.7 of that, not of a ramp's overshoot); growth then
 *   closes half the gap to it per round trip, holds just under it for a few round trips (a probe that meets the
 *   same limit costs a cut) and then probes past it by +1 per round trip;
 * - congestion (latency above its baseline, sandbox acquire waits, a queueing model server): a gentle decrease and
 *   no growth.
 * A decrease takes effect only once the rollouts admitted above the new level have finished, so the signals those
 * rollouts still produce (a burst of 429s sent at the old level) cut the level once, not once each, and their
 * successes do not grow it back before the cut was felt (TCP's one cut per window, no growth in recovery).
 */
import type { LoadSignal } from './load-signals.js';

export interface AdmissionPolicyOptions {
  /** The ceiling (--max-concurrency). */
  maxLevel: number;
  /** The floor; default 1. */
  minLevel?: number;
  /** Where the ramp starts; default min(4, maxLevel). */
  initialLevel?: number;
  /** Multiplier on overload (429/503/timeout) and memory pressure; default 0.7. */
  overloadFactor?: number;
  /** Multiplier on congestion (latency rising, acquire waits, a queueing server); default 0.9. */
  congestionFactor?: number;
  /** Latency counts as rising above baseline x this; default 3. */
  latencyTolerance?: number;
  /** ... and above baseline + this many ms (a 2 ms call that takes 6 ms is noise, not load); default 50. */
  latencyFloorMs?: number;
  /** A sandbox acquire that waited longer than this means the pool, not the endpoint, bounds the run; default 1000. */
  acquireWaitMs?: number;
  /**
   * Round trips the level holds just under the remembered limit before it probes past it; default 8. Each probe that
   * meets the limit where the last cut found it doubles the next hold, up to 4 times this.
   */
  probeHoldRoundTrips?: number;
}

export type AdmissionPhase = 'ramp' | 'steady';

/** Why the level last changed: growth, or the signal that cut it. */
export type LevelReason = 'start' | 'ramp' | 'grow' | 'overload' | 'latency' | 'sandbox-wait' | 'server-queue' | 'memory';

/** Latency is the median of this many recent calls: one slow call (a GC pause, a long prompt) is not load. */
const LATENCY_WINDOW = 16;
/** Calls in the window before its median sets or moves the baseline. */
const BASELINE_SAMPLES = 8;
/** The level counts as in use when at least this share of it is in flight (a finished rollout frees its slot first). */
const IN_USE_SHARE = 0.75;

export class AdmissionPolicy {
  readonly maxLevel: number;
  readonly minLevel: number;
  private current: number;
  private phaseNow: AdmissionPhase = 'ramp';
  /** The level an overload last happened at: growth slows down near it. */
  private knownLimit: number | undefined;
  /** Signals from calls started before this were sent at a higher level: they do not cut again. */
  private lastDecreaseAtMs = Number.NEGATIVE_INFINITY;
  private cutsSoFar = 0;
  /** Successes counted while holding under the remembered limit (a round trip is `level` of them). */
  private heldSuccesses = 0;
  /** The current hold, in round trips. */
  private holdRoundTrips: number;
  private readonly recentLatenciesMs: number[] = [];
  private latencyMedianMs: number | undefined;
  private latencyBaselineMs: number | undefined;
  private reason: LevelReason = 'start';
  private readonly options: Required<Omit<AdmissionPolicyOptions, 'maxLevel' | 'minLevel' | 'initialLevel'>>;

  constructor(options: AdmissionPolicyOptions) {
    if (!Number.isInteger(options.maxLevel) || options.maxLevel < 1) throw new RangeError(`maxLevel must be a whole number >= 1, got ${options.maxLevel}`);
    this.maxLevel = options.maxLevel;
    this.minLevel = Math.min(options.minLevel ?? 1, this.maxLevel);
    this.current = clamp(options.initialLevel ?? 4, this.minLevel, this.maxLevel);
    this.options = {
      overloadFactor: options.overloadFactor ?? 0.7,
      congestionFactor: options.congestionFactor ?? 0.9,
      latencyTolerance: options.latencyTolerance ?? 3,
      latencyFloorMs: options.latencyFloorMs ?? 50,
      acquireWaitMs: options.acquireWaitMs ?? 1000,
      probeHoldRoundTrips: options.probeHoldRoundTrips ?? 8,
    };
    this.holdRoundTrips = this.options.probeHoldRoundTrips;
  }

  /** Rollouts that may be in flight now. */
  get level(): number {
    return Math.floor(this.current);
  }

  get phase(): AdmissionPhase {
    return this.phaseNow;
  }

  get lastReason(): LevelReason {
    return this.reason;
  }

  /** Decreases so far (a burst's refusals refining a cut do not count as another). */
  get cuts(): number {
    return this.cutsSoFar;
  }

  /** The median latency of recent successful model calls and its baseline (the lowest that median has been), in ms. */
  get latency(): { medianMs: number | null; baselineMs: number | null } {
    return { medianMs: this.latencyMedianMs ?? null, baselineMs: this.latencyBaselineMs ?? null };
  }

  /**
   * Applies one signal; `inFlight` is how many rollouts are admitted right now; `refusedAgain`: the signal is a refused
   * call of a rollout that already had one refused since the last cut (a retry, which says nothing new about the
   * endpoint). Returns true when the level changed.
   */
  observe(signal: LoadSignal, inFlight: number, nowMs: number, refusedAgain = false): boolean {
    const before = this.level;
    switch (signal.kind) {
      case 'model-call':
        if (signal.outcome === 'ok') this.onSuccess(signal.latencyMs, signal.startedAtMs, inFlight, nowMs);
        else if (signal.outcome === 'overloaded' || signal.outcome === 'timeout') this.overloaded(signal.startedAtMs, inFlight, nowMs, refusedAgain);
        break;
      case 'rollout-done':
        // Rollouts without a model call (baseline agents, CLI agents behind the proxy) still clock the ramp.
        if (!signal.modelCalls) this.grow(inFlight);
        break;
      case 'sandbox-wait':
        if (signal.waitMs > this.options.acquireWaitMs) this.decrease('sandbox-wait', signal.startedAtMs, inFlight, nowMs);
        break;
      case 'server-load':
        // A queue beyond a tenth of the batch, or a KV cache about to preempt: more requests would only wait there.
        if (signal.waiting > Math.max(1, signal.running / 10) || (signal.kvCacheUsage ?? 0) > 0.95) this.decrease('server-queue', nowMs, inFlight, nowMs);
        break;
      case 'memory-pressure':
        this.decrease('memory', nowMs, inFlight, nowMs);
        break;
    }
    return this.level !== before;
  }

  private onSuccess(latencyMs: number, startedAtMs: number, inFlight: number, nowMs: number): void {
    // Sent at the level before the last cut: its latency says nothing about the new level, and growing on it would undo the cut.
    if (startedAtMs < this.lastDecreaseAtMs) return;
    this.recentLatenciesMs.push(latencyMs);
    if (this.recentLatenciesMs.length > LATENCY_WINDOW) this.recentLatenciesMs.shift();
    this.latencyMedianMs = median(this.recentLatenciesMs);
    if (this.recentLatenciesMs.length >= BASELINE_SAMPLES)
      this.latencyBaselineMs = Math.min(this.latencyBaselineMs ?? Number.POSITIVE_INFINITY, this.latencyMedianMs);
    if (this.latencyRising()) this.decrease('latency', startedAtMs, inFlight, nowMs);
    // After a latency cut, hold until the window has refilled from calls at the new level.
    else if (this.latencyBaselineMs === undefined || this.recentLatenciesMs.length >= BASELINE_SAMPLES) this.grow(inFlight);
  }

  private latencyRising(): boolean {
    const { latencyMedianMs: latency, latencyBaselineMs: baseline } = this;
    if (latency === undefined || baseline === undefined || this.recentLatenciesMs.length < BASELINE_SAMPLES) return false;
    return latency > baseline * this.options.latencyTolerance && latency > baseline + this.options.latencyFloorMs;
  }

  private grow(inFlight: number): void {
    // An unused level proves nothing about the endpoint: grow only where the evidence is. Above the level, a cut has
    // not taken effect yet (the rollouts admitted before it still drain): growing there would undo it unseen.
    if (inFlight < this.level * IN_USE_SHARE || inFlight > this.level || this.current >= this.maxLevel) return;
    let step: number;
    if (this.phaseNow === 'ramp') step = 1;
    else if (this.knownLimit !== undefined && this.current < this.knownLimit - 1) step = (this.knownLimit - this.current) / (2 * this.current);
    else if (this.knownLimit !== undefined && this.heldSuccesses < this.holdRoundTrips * this.level) {
      // Back under the limit the last cut found: stay there a while, since each probe past it costs a cut if it still holds.
      this.heldSuccesses++;
      return;
    } else step = 1 / this.current;
    this.current = Math.min(this.maxLevel, this.current + Math.max(step, 1 / this.current));
    this.reason = this.phaseNow === 'ramp' ? 'ramp' : 'grow';
  }

  private overloaded(startedAtMs: number, inFlight: number, nowMs: number, refusedAgain: boolean): void {
    if (this.decrease('overload', startedAtMs, inFlight, nowMs) || refusedAgain || this.knownLimit === undefined) return;
    // Another rollout refused in the burst the last cut answered: the endpoint took one request fewer than was in
    // flight at the cut. The cut was sized from what was in flight (after a ramp, up to twice what the endpoint
    // takes); it follows down to the factor of what the endpoint took, once, instead of once per round trip.
    this.knownLimit = Math.max(this.minLevel, this.knownLimit - 1);
    this.current = Math.max(this.minLevel, Math.min(this.current, this.knownLimit * this.options.overloadFactor));
  }

  /** Returns false when the signal is part of what the last cut already answered. */
  private decrease(reason: LevelReason, startedAtMs: number, inFlight: number, nowMs: number): boolean {
    // Sent before the last cut, or while the rollouts admitted above the cut level are still running: that cut already covers it.
    if (startedAtMs < this.lastDecreaseAtMs || inFlight > this.level) return false;
    const overload = reason === 'overload' || reason === 'memory';
    const previousLimit = this.knownLimit;
    if (overload) this.knownLimit = Math.max(this.minLevel, Math.min(this.current, inFlight));
    else this.knownLimit = Math.min(this.knownLimit ?? Number.POSITIVE_INFINITY, this.current);
    // Met the limit where the last cut found it: it holds, so each probe past it is likelier to cost a cut; probe half as often.
    const sameLimit = previousLimit !== undefined && Math.abs(this.knownLimit - previousLimit) <= 1;
    const base = this.options.probeHoldRoundTrips;
    this.holdRoundTrips = sameLimit ? Math.min(this.holdRoundTrips * 2, 4 * base) : base;
    const factor = overload ? this.options.overloadFactor : this.options.congestionFactor;
    this.current = clamp(this.current * factor, this.minLevel, this.maxLevel);
    this.phaseNow = 'steady';
    this.lastDecreaseAtMs = nowMs;
    this.heldSuccesses = 0;
    this.cutsSoFar++;
    this.reason = reason;
    // After a cut the window still holds the overloaded latencies; it refills from calls sent at the new level.
    if (reason === 'latency') this.recentLatenciesMs.splice(0);
    return true;
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));
