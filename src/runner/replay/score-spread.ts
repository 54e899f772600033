/**
 * Judge variance: how much repeated scorings of the same trajectory disagree, per metric and for the reward,
 * over the records a rescore with `--repeats N` wrote. For each metric: how many trajectories disagreed at all,
 * the mean and the largest per-trajectory standard deviation, and the largest range (max - min).
 */
import type { ResultRecord } from '../trajectory/result-record.js';
import type { RescoreRepeats } from './rescore-executor.js';

export interface MetricSpread {
  trajectories: number;
  /** Trajectories whose N scores were not all equal. */
  disagreed: number;
  mean_std: number;
  max_std: number;
  max_range: number;
}

export interface ScoreSpread {
  repeats: number;
  /** 'reward' plus one entry per rubric function. */
  metrics: Record<string, MetricSpread>;
}

export function scoreSpread(records: readonly ResultRecord[], repeats: number): ScoreSpread {
  const series = new Map<string, number[][]>();
  const add = (name: string, values: number[]) => series.set(name, [...(series.get(name) ?? []), values]);
  for (const record of records) {
    const repeated = record['rescore'] as RescoreRepeats | undefined;
    if (record.error !== null || !repeated) continue;
    add('reward', repeated.rewards);
    for (const [name, values] of Object.entries(repeated.metrics)) add(name, values);
  }
  const metrics: Record<string, MetricSpread> = {};
  for (const [name, all] of series) {
    const stds = all.map(standardDeviation);
    const ranges = all.map((values) => Math.max(...values) - Math.min(...values));
    metrics[name] = {
      trajectories: all.length,
      disagreed: ranges.filter((range) => range > 1e-12).length,
      mean_std: round(stds.reduce((sum, value) => sum + value, 0) / stds.length),
      max_std: round(Math.max(...stds)),
      max_range: round(Math.max(...ranges)),
    };
  }
  return { repeats, metrics };
}

export function formatScoreSpread(spread: ScoreSpread): string {
  const lines = Object.entries(spread.metrics).map(
    ([name, each]) =>
      `  ${name}: ${each.disagreed}/${each.trajectories} trajectories disagreed, mean std ${each.mean_std}, max std ${each.max_std}, max range ${each.max_range}`,
  );
  return [`score spread over ${spread.repeats} scorings per trajectory:`, ...lines].join('\n');
}

function standardDeviation(values: readonly number[]): number {
  const average = values.reduce((sum, value) => sum + value, 0) / values.length;
  return Math.sqrt(values.reduce((sum, value) => sum + (value - average) ** 2, 0) / values.length);
}

const round = (value: number) => Math.round(value * 1e6) / 1e6;
