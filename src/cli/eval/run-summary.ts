/** Averages over results.jsonl records, for metadata.json (vf-eval's avg_reward, avg_<metric>) and the summary table. */
import type { ResultRecord } from '../../runner/trajectory/result-record.js';

export interface RunSummary {
  rollouts: number;
  errored: number;
  avg_reward: number | null;
  metrics: Record<string, number>;
  errorsByCode: Record<string, number>;
}

export function summarise(records: readonly ResultRecord[]): RunSummary {
  const scored = records.filter((record) => record.reward !== null && !record.error);
  const metricSums: Record<string, number> = {};
  for (const record of scored) for (const [name, value] of Object.entries(record.metrics)) metricSums[name] = (metricSums[name] ?? 0) + value;
  const errorsByCode: Record<string, number> = {};
  for (const record of records) if (record.error) errorsByCode[record.error.code] = (errorsByCode[record.error.code] ?? 0) + 1;
  return {
    rollouts: records.length,
    errored: records.length - scored.length,
    avg_reward: scored.length ? scored.reduce((sum, record) => sum + record.reward!, 0) / scored.length : null,
    metrics: Object.fromEntries(Object.entries(metricSums).map(([name, sum]) => [name, sum / scored.length])),
    errorsByCode,
  };
}

export function formatSummary(summary: RunSummary, directory: string): string {
  const rows: [string, string][] = [
    ['rollouts', String(summary.rollouts)],
    ['errored', String(summary.errored)],
    ['mean reward', summary.avg_reward === null ? '-' : summary.avg_reward.toFixed(4)],
    ...Object.entries(summary.metrics).map(([name, value]): [string, string] => [`mean ${name}`, value.toFixed(4)]),
    ...Object.entries(summary.errorsByCode).map(([code, count]): [string, string] => [`error ${code}`, String(count)]),
    ['results', directory],
  ];
  const width = Math.max(...rows.map(([name]) => name.length));
  return rows.map(([name, value]) => `${name.padEnd(width)}  ${value}`).join('\n');
}
