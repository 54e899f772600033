/**
 * The run page's numbers, in one pass over the in-memory rows: corral's own summary (summarise: means, errors by
 * code, tokens, pass@k), reward and metric histograms, timing percentiles per phase, errors by boundary, and the
 * group statistics for r > 1.
 */
import { type RunSummary, summarise } from '../runner/run/run-summary.js';
import { groupStats } from '../runner/scheduler/group-stats.js';
import { type RolloutRow, rowAsRecord } from './rollout-row.js';

export interface Histogram {
  min: number;
  max: number;
  /** Bin i covers [min + i*width, min + (i+1)*width); the last bin includes max. One bin when every value is min. */
  counts: number[];
}

export interface RunStatistics {
  summary: RunSummary;
  rewardHistogram: Histogram | null;
  metricHistograms: Record<string, Histogram>;
  errorsByBoundary: Record<string, number>;
  /** Per error code: its boundary and up to three example messages. */
  errorExamples: Record<string, { boundary: string; count: number; messages: string[] }>;
  timingPercentiles: Record<string, { p50: number; p90: number; p99: number; max: number }>;
  groups: { count: number; meanStd: number | null; zeroVariance: number; allErrored: number } | null;
  turns: { mean: number; max: number };
  toolCalls: { total: number; mean: number };
}

const BINS = 20;

/**
 * Metrics the viewer already shows as its own columns and cards: a terminal verifier's `reward` (the reward itself)
 * and the `turns` / `tool_calls` counts some rubrics record at weight 0. Shown once, not twice.
 */
export const SHOWN_ELSEWHERE = new Set(['reward', 'turns', 'tool_calls']);

export function runStatistics(rows: readonly RolloutRow[], rolloutsPerExample: number): RunStatistics {
  const scored = rows.filter((row) => row.reward !== null && !row.error);
  const metricNames = new Set(scored.flatMap((row) => Object.keys(row.metrics)).filter((name) => !SHOWN_ELSEWHERE.has(name)));
  const errorsByBoundary: Record<string, number> = {};
  const errorExamples: RunStatistics['errorExamples'] = {};
  for (const row of rows) {
    if (!row.error) continue;
    errorsByBoundary[row.error.boundary] = (errorsByBoundary[row.error.boundary] ?? 0) + 1;
    const entry = (errorExamples[row.error.code] ??= { boundary: row.error.boundary, count: 0, messages: [] });
    entry.count++;
    if (entry.messages.length < 3 && !entry.messages.includes(row.error.message)) entry.messages.push(row.error.message);
  }
  const phaseNames = new Set(rows.flatMap((row) => Object.keys(row.timing)));
  const turns = rows.map((row) => row.turns);
  const toolCalls = rows.reduce((sum, row) => sum + row.tool_calls, 0);
  return {
    summary: summarise(rows.map(rowAsRecord), rolloutsPerExample),
    rewardHistogram: histogram(scored.map((row) => row.reward!)),
    metricHistograms: Object.fromEntries(
      [...metricNames].map((name) => [name, histogram(scored.map((row) => row.metrics[name]).filter((value) => typeof value === 'number'))!]),
    ),
    errorsByBoundary,
    errorExamples,
    timingPercentiles: Object.fromEntries([...phaseNames].map((name) => [name, percentiles(rows.map((row) => row.timing[name] ?? 0))])),
    groups: rolloutsPerExample > 1 ? groupSummary(rows) : null,
    turns: { mean: turns.length ? turns.reduce((a, b) => a + b, 0) / turns.length : 0, max: turns.reduce((a, b) => Math.max(a, b), 0) },
    toolCalls: { total: toolCalls, mean: rows.length ? toolCalls / rows.length : 0 },
  };
}

export function histogram(values: readonly number[]): Histogram | null {
  if (values.length === 0) return null;
  let min = Infinity;
  let max = -Infinity;
  for (const value of values) {
    if (value < min) min = value;
    if (value > max) max = value;
  }
  if (min === max) return { min, max, counts: [values.length] };
  const counts = new Array<number>(BINS).fill(0);
  const width = (max - min) / BINS;
  for (const value of values) {
    const bin = Math.min(BINS - 1, Math.floor((value - min) / width));
    counts[bin]!++;
  }
  return { min, max, counts };
}

/** Nearest-rank percentiles. */
export function percentiles(values: readonly number[]): { p50: number; p90: number; p99: number; max: number } {
  const sorted = Float64Array.from(values).sort();
  const at = (q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]! : 0);
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted.length ? sorted[sorted.length - 1]! : 0 };
}

/** Groups (examples) whose scored rollouts all got one reward carry no GRPO signal: zeroVariance counts them. */
function groupSummary(rows: readonly RolloutRow[]): RunStatistics['groups'] {
  const rewardsByExample = new Map<string, number[]>();
  for (const row of rows) {
    const rewards = rewardsByExample.get(row.example_id) ?? [];
    if (row.reward !== null && !row.error) rewards.push(row.reward);
    rewardsByExample.set(row.example_id, rewards);
  }
  let zeroVariance = 0;
  let allErrored = 0;
  let stdSum = 0;
  let stdCount = 0;
  for (const rewards of rewardsByExample.values()) {
    if (rewards.length === 0) {
      allErrored++;
      continue;
    }
    const std = groupStats(rewards).std ?? 0;
    if (std === 0) zeroVariance++;
    stdSum += std;
    stdCount++;
  }
  return { count: rewardsByExample.size, meanStd: stdCount ? stdSum / stdCount : null, zeroVariance, allErrored };
}
