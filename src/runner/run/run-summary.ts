/**
 * Over results.jsonl records, for metadata.json (vf-eval's avg_reward, avg_<metric>, plus corral's counts) and
 * the summary table: errors by code with one sample message each, truncations, token totals (a simulated user's
 * apart from the agent's) and pass@k.
 */
import type { TokenUsage } from '../trajectory/messages.js';
import type { ResultRecord } from '../trajectory/result-record.js';
import { passAtKByK } from './pass-at-k.js';

export interface RunSummary {
  rollouts: number;
  errored: number;
  /** Rollouts whose model hit its token limit (finish_reason "length"). */
  truncated: number;
  avg_reward: number | null;
  metrics: Record<string, number>;
  errorsByCode: Record<string, number>;
  /** The first message seen per error code, so the summary says what went wrong, not only how often. */
  errorSamples: Record<string, string>;
  /** Summed over every rollout that reported usage; null when none did. */
  usage: TokenUsage | null;
  /** Simulated users' model calls (user_usage), summed apart from the agents'; null when no rollout had any. */
  userUsage: TokenUsage | null;
  passAtK: Record<string, number> | null;
}

export function summarise(records: readonly ResultRecord[], rolloutsPerExample = 1): RunSummary {
  const scored = records.filter((record) => record.reward !== null && !record.error);
  const metricSums: Record<string, number> = {};
  for (const record of scored) for (const [name, value] of Object.entries(record.metrics)) metricSums[name] = (metricSums[name] ?? 0) + value;
  const errorsByCode: Record<string, number> = {};
  const errorSamples: Record<string, string> = {};
  for (const record of records) {
    if (!record.error) continue;
    errorsByCode[record.error.code] = (errorsByCode[record.error.code] ?? 0) + 1;
    errorSamples[record.error.code] ??= record.error.message;
  }
  return {
    rollouts: records.length,
    errored: records.length - scored.length,
    truncated: records.filter((record) => record.truncated === true).length,
    avg_reward: scored.length ? scored.reduce((sum, record) => sum + record.reward!, 0) / scored.length : null,
    metrics: Object.fromEntries(Object.entries(metricSums).map(([name, sum]) => [name, sum / scored.length])),
    errorsByCode,
    errorSamples,
    usage: totalUsage(records.map((record) => record.usage)),
    userUsage: totalUsage(records.map((record) => record.user_usage ?? null)),
    passAtK: passAtKByK(records, rolloutsPerExample),
  };
}

function totalUsage(usages: readonly (TokenUsage | null)[]): TokenUsage | null {
  let total: TokenUsage | null = null;
  for (const usage of usages) {
    if (!usage) continue;
    total ??= { prompt_tokens: 0, completion_tokens: 0 };
    total.prompt_tokens += usage.prompt_tokens;
    total.completion_tokens += usage.completion_tokens;
    if (usage.cached_tokens !== undefined) total.cached_tokens = (total.cached_tokens ?? 0) + usage.cached_tokens;
  }
  return total;
}

/** The summary's fields as metadata.json keys. */
export function summaryMetadata(summary: RunSummary): Record<string, unknown> {
  return {
    avg_reward: summary.avg_reward,
    ...Object.fromEntries(Object.entries(summary.metrics).map(([name, value]) => [`avg_${name}`, value])),
    rollouts: summary.rollouts,
    errored: summary.errored,
    truncated: summary.truncated,
    errors_by_code: summary.errorsByCode,
    error_samples: summary.errorSamples,
    usage: summary.usage,
    ...(summary.userUsage ? { user_usage: summary.userUsage } : {}),
    pass_at_k: summary.passAtK,
  };
}

export function formatSummary(summary: RunSummary, directory: string): string {
  const usage = summary.usage;
  const rows: [string, string][] = [
    ['rollouts', String(summary.rollouts)],
    ['errored', String(summary.errored)],
    ['truncated', String(summary.truncated)],
    ['mean reward', summary.avg_reward === null ? '-' : summary.avg_reward.toFixed(4)],
    // A metric named reward (a terminal verifier's) is the reward itself: printed once, above.
    ...Object.entries(summary.metrics)
      .filter(([name]) => name !== 'reward')
      .map(([name, value]): [string, string] => [`mean ${name}`, formatMean(value)]),
    ...Object.entries(summary.passAtK ?? {}).map(([k, value]): [string, string] => [`pass@${k}`, value.toFixed(4)]),
    ...(usage
      ? [['tokens', `${usage.prompt_tokens} prompt (${usage.cached_tokens ?? '?'} cached), ${usage.completion_tokens} completion`] as [string, string]]
      : []),
    ...(summary.userUsage
      ? [['user tokens', `${summary.userUsage.prompt_tokens} prompt, ${summary.userUsage.completion_tokens} completion`] as [string, string]]
      : []),
    ...Object.entries(summary.errorsByCode).map(([code, count]): [string, string] => [
      `error ${code}`,
      `${count}, e.g. ${oneLine(summary.errorSamples[code] ?? '')}`,
    ]),
    ['results', directory],
  ];
  const width = Math.max(...rows.map(([name]) => name.length));
  return rows.map(([name, value]) => `${name.padEnd(width)}  ${value}`).join('\n');
}

/** Four decimals, except a whole number (a count such as turns), which is printed as one: 9, not 9.0000. */
export const formatMean = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(4));

const oneLine = (text: string) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 160 ? `${flat.slice(0, 160)}…` : flat;
};
