/**
 * The admission controller: a gate in front of every rollout of the run driver (FIFO, cancellable), whose level
 * is fixed (`-c N`) or set by the admission policy from load signals (`-c auto`). Each admitted rollout runs with
 * the controller as its load observer (load-signals.ts), so the model client's signals reach the run they belong
 * to. One controller may serve several runs at once (the rollout API shares one across concurrent requests).
 */
import { freemem, totalmem } from 'node:os';
import { AdmissionPolicy, type AdmissionPolicyOptions, type AdmissionPhase, type LevelReason } from './admission-policy.js';
import { type LevelPoint, LevelHistory } from './level-history.js';
import { type LoadObserver, type LoadSignal, withLoadObserver } from './load-signals.js';

export type AdmissionMode = 'auto' | 'fixed';

export interface AdmissionOptions {
  /** `auto`: the policy sets the level up to maxConcurrency; `fixed`: the level is maxConcurrency. */
  mode: AdmissionMode;
  /** The ceiling in auto mode (--max-concurrency), the level in fixed mode (-c N). */
  maxConcurrency: number;
  /** Tuning of the auto policy (tests use it; the defaults are documented in docs/admission.md). */
  policy?: Omit<AdmissionPolicyOptions, 'maxLevel'>;
  /** Clock in ms (default performance.now). */
  now?: () => number;
  /** Share of host memory still available, 0..1 (default: os.freemem / os.totalmem, and the cgroup limit when set). */
  freeMemory?: () => number;
  /** Below this share of free memory the level is cut (auto mode); default 0.05. */
  minFreeMemory?: number;
}

/** What metadata.json, /metrics, the viewer and the progress line show. */
export interface AdmissionSnapshot {
  mode: AdmissionMode;
  max: number;
  level: number;
  in_flight: number;
  peak_in_flight: number;
  /** Rollouts waiting at the gate. */
  waiting: number;
  phase: AdmissionPhase | 'fixed';
  reason: LevelReason | 'fixed';
  /** Backoffs by reason (overload, latency, sandbox-wait, server-queue, memory). */
  cuts: Partial<Record<LevelReason, number>>;
  /** Median latency of recent successful model calls and its baseline, ms (null before any). */
  latency_ms: number | null;
  latency_baseline_ms: number | null;
  /** [seconds since the controller started, level] at every change. */
  history: LevelPoint[];
}

/** The part of the controller the run driver uses. */
export interface RunAdmission {
  readonly maxConcurrency: number;
  /** Waits for a slot, runs `task` with this controller observing its load, frees the slot. `undefined`: cancelled while waiting. */
  run<T>(abortSignal: AbortSignal, task: () => Promise<T>): Promise<T | undefined>;
}

/** Memory is sampled at most this often (it is read on the admission path). */
const MEMORY_SAMPLE_MS = 1_000;

export class AdmissionController implements RunAdmission, LoadObserver {
  readonly mode: AdmissionMode;
  readonly maxConcurrency: number;
  private readonly policy: AdmissionPolicy | undefined;
  private readonly now: () => number;
  private readonly history: LevelHistory;
  private readonly waiters: (() => void)[] = [];
  private readonly listeners = new Set<(snapshot: AdmissionSnapshot) => void>();
  private readonly cuts: Partial<Record<LevelReason, number>> = {};
  private readonly freeMemory: () => number;
  private readonly minFreeMemory: number;
  private inFlight = 0;
  private peakInFlight = 0;
  private memorySampledAtMs = Number.NEGATIVE_INFINITY;

  constructor(options: AdmissionOptions) {
    if (!Number.isInteger(options.maxConcurrency) || options.maxConcurrency < 1)
      throw new RangeError(`maxConcurrency must be a whole number >= 1, got ${options.maxConcurrency}`);
    this.mode = options.mode;
    this.maxConcurrency = options.maxConcurrency;
    this.policy = options.mode === 'auto' ? new AdmissionPolicy({ ...options.policy, maxLevel: options.maxConcurrency }) : undefined;
    this.now = options.now ?? (() => performance.now());
    this.freeMemory = options.freeMemory ?? hostFreeMemory;
    this.minFreeMemory = options.minFreeMemory ?? 0.05;
    this.history = new LevelHistory(this.now());
    this.history.record(this.now(), this.level);
  }

  get level(): number {
    return this.policy?.level ?? this.maxConcurrency;
  }

  async run<T>(abortSignal: AbortSignal, task: () => Promise<T>): Promise<T | undefined> {
    if (!(await this.admit(abortSignal))) return undefined;
    let modelCalls = false;
    // The policy's cut count when a call of this rollout was last refused: its retries in the same burst say nothing new.
    let refusedAtCut: number | undefined;
    const observer: LoadObserver = {
      observe: (signal) => {
        if (signal.kind !== 'model-call') return this.observe(signal);
        modelCalls = true;
        const refused = signal.outcome === 'overloaded' || signal.outcome === 'timeout';
        this.observe(signal, refused && refusedAtCut !== undefined && refusedAtCut === this.policy?.cuts);
        if (refused) refusedAtCut = this.policy?.cuts;
      },
    };
    try {
      return await withLoadObserver(observer, task);
    } finally {
      this.observe({ kind: 'rollout-done', modelCalls });
      this.inFlight--;
      this.pump();
    }
  }

  /** `refusedAgain`: a refused call of a rollout that already had one refused since the policy's last cut. */
  observe(signal: LoadSignal, refusedAgain = false): void {
    if (!this.policy) return;
    const nowMs = this.now();
    const cutsBefore = this.policy.cuts;
    if (!this.policy.observe(signal, this.inFlight, nowMs, refusedAgain)) return;
    if (this.policy.cuts > cutsBefore) this.cuts[this.policy.lastReason] = (this.cuts[this.policy.lastReason] ?? 0) + 1;
    this.history.record(nowMs, this.level);
    this.pump();
  }

  /** Called on every change of level, waiting or in-flight counts. Returns a function that unsubscribes. */
  onChange(listener: (snapshot: AdmissionSnapshot) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  snapshot(): AdmissionSnapshot {
    const latency = this.policy?.latency;
    return {
      mode: this.mode,
      max: this.maxConcurrency,
      level: this.level,
      in_flight: this.inFlight,
      peak_in_flight: this.peakInFlight,
      waiting: this.waiters.length,
      phase: this.policy?.phase ?? 'fixed',
      reason: this.policy?.lastReason ?? 'fixed',
      cuts: { ...this.cuts },
      latency_ms: latency?.medianMs === null || latency === undefined ? null : round(latency.medianMs),
      latency_baseline_ms: latency?.baselineMs === null || latency === undefined ? null : round(latency.baselineMs),
      history: this.history.toJSON(),
    };
  }

  private admit(abortSignal: AbortSignal): Promise<boolean> {
    if (abortSignal.aborted) return Promise.resolve(false);
    this.checkMemory();
    if (this.waiters.length === 0 && this.inFlight < this.level) {
      this.take();
      return Promise.resolve(true);
    }
    return new Promise<boolean>((resolve) => {
      const onAbort = () => {
        const index = this.waiters.indexOf(admitted);
        if (index >= 0) this.waiters.splice(index, 1);
        resolve(false);
      };
      const admitted = () => {
        abortSignal.removeEventListener('abort', onAbort);
        this.take();
        resolve(true);
      };
      abortSignal.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(admitted);
    });
  }

  private take(): void {
    this.inFlight++;
    this.peakInFlight = Math.max(this.peakInFlight, this.inFlight);
  }

  private pump(): void {
    while (this.waiters.length > 0 && this.inFlight < this.level) this.waiters.shift()!();
    this.notify();
  }

  private notify(): void {
    if (this.listeners.size === 0) return;
    const snapshot = this.snapshot();
    for (const listener of this.listeners) listener(snapshot);
  }

  private checkMemory(): void {
    if (!this.policy) return;
    const nowMs = this.now();
    if (nowMs - this.memorySampledAtMs < MEMORY_SAMPLE_MS) return;
    this.memorySampledAtMs = nowMs;
    const freeFraction = this.freeMemory();
    if (freeFraction < this.minFreeMemory) this.observe({ kind: 'memory-pressure', freeFraction });
  }
}

const round = (value: number) => Math.round(value * 10) / 10;

/** The host's available memory, or the cgroup's when the process runs under a lower limit. */
function hostFreeMemory(): number {
  const host = freemem() / totalmem();
  const limit = process.constrainedMemory?.() ?? 0;
  if (limit > 0 && limit < totalmem()) return Math.min(host, Math.max(0, limit - process.memoryUsage.rss()) / limit);
  return host;
}
