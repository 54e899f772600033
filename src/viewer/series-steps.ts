/**
 * A series is a training run's reward curve: the rollout requests a trainer sent with `record: {series, step}`.
 * corral serve keeps each series in one run folder, `<runs>/series/<name>/`: results.jsonl (every record, each
 * request's records together) and steps.jsonl (one SeriesRequestLine per request, in the same order). This file is
 * that format, written by http/rollout-series.ts and read by the viewer's series routes, and the per-step curve.
 */

export const SERIES_FOLDER = 'series';
export const SERIES_STEPS_FILE = 'steps.jsonl';
/** Letters, digits, '.', '_' and '-', starting with a letter or digit: a folder name that cannot leave its parent. */
export const SERIES_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** What one POST /v1/rollouts request of a step added to the series. Sums, so requests of one step combine exactly. */
export interface SeriesRequestLine {
  version: 1;
  step: number;
  /** The request's summary status: complete, cancelled (the client left), failed, incomplete. */
  status: string;
  env: string;
  model: string;
  started_at: string;
  finished_at: string;
  time_ms: number;
  /** The results.jsonl line (0-based) of this request's first record, and how many it appended. */
  first_line: number;
  records: number;
  errored: number;
  /** Over scored rollouts (reward not null); min and max are null when none was scored. */
  scored: number;
  reward_sum: number;
  reward_sq_sum: number;
  reward_min: number | null;
  reward_max: number | null;
  /** Token counts the model endpoint reported (record.usage), summed over the `usage_records` that had them. */
  usage_records: number;
  prompt_tokens: number;
  completion_tokens: number;
}

export type SeriesRequestCounts = Pick<
  SeriesRequestLine,
  'records' | 'errored' | 'scored' | 'reward_sum' | 'reward_sq_sum' | 'reward_min' | 'reward_max' | 'usage_records' | 'prompt_tokens' | 'completion_tokens'
>;

/** The counts of a request's records (result records, read as opaque JSON). */
export function countSeriesRecords(records: readonly Record<string, unknown>[]): SeriesRequestCounts {
  const counts: SeriesRequestCounts = {
    records: records.length,
    errored: 0,
    scored: 0,
    reward_sum: 0,
    reward_sq_sum: 0,
    reward_min: null,
    reward_max: null,
    usage_records: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
  };
  for (const record of records) {
    if (record['error'] !== null && record['error'] !== undefined) counts.errored++;
    const reward = record['reward'];
    if (typeof reward === 'number' && Number.isFinite(reward)) {
      counts.scored++;
      counts.reward_sum += reward;
      counts.reward_sq_sum += reward * reward;
      counts.reward_min = Math.min(counts.reward_min ?? reward, reward);
      counts.reward_max = Math.max(counts.reward_max ?? reward, reward);
    }
    const usage = record['usage'] as { prompt_tokens?: unknown; completion_tokens?: unknown } | null | undefined;
    if (usage && typeof usage.prompt_tokens === 'number' && typeof usage.completion_tokens === 'number') {
      counts.usage_records++;
      counts.prompt_tokens += usage.prompt_tokens;
      counts.completion_tokens += usage.completion_tokens;
    }
  }
  return counts;
}

/** One point of each curve: every request of the step together. */
export interface SeriesStep {
  step: number;
  requests: number;
  rollouts: number;
  errored: number;
  /** errored / rollouts. */
  errored_share: number;
  /** Over scored rollouts; null when none was scored. std is the population standard deviation. */
  reward_mean: number | null;
  reward_std: number | null;
  reward_min: number | null;
  reward_max: number | null;
  /** Per rollout that reported usage; null when none did. */
  prompt_tokens_per_rollout: number | null;
  completion_tokens_per_rollout: number | null;
  /** From the step's first request starting to its last finishing. */
  time_ms: number;
}

export function seriesSteps(lines: readonly SeriesRequestLine[]): SeriesStep[] {
  const byStep = new Map<number, SeriesRequestLine[]>();
  for (const line of lines) byStep.set(line.step, [...(byStep.get(line.step) ?? []), line]);
  return [...byStep.entries()]
    .sort(([a], [b]) => a - b)
    .map(([step, requests]) => {
      const sum = (pick: (line: SeriesRequestLine) => number) => requests.reduce((total, line) => total + pick(line), 0);
      const rollouts = sum((line) => line.records);
      const scored = sum((line) => line.scored);
      const mean = scored > 0 ? sum((line) => line.reward_sum) / scored : null;
      const variance = mean === null ? null : Math.max(0, sum((line) => line.reward_sq_sum) / scored - mean * mean);
      const extreme = (values: (number | null)[], pick: (...numbers: number[]) => number) => {
        const present = values.filter((value): value is number => value !== null);
        return present.length > 0 ? pick(...present) : null;
      };
      const usageRecords = sum((line) => line.usage_records);
      const started = Math.min(...requests.map((line) => Date.parse(line.started_at)));
      const finished = Math.max(...requests.map((line) => Date.parse(line.finished_at)));
      return {
        step,
        requests: requests.length,
        rollouts,
        errored: sum((line) => line.errored),
        errored_share: rollouts > 0 ? sum((line) => line.errored) / rollouts : 0,
        reward_mean: mean,
        reward_std: variance === null ? null : Math.sqrt(variance),
        reward_min: extreme(
          requests.map((line) => line.reward_min),
          Math.min,
        ),
        reward_max: extreme(
          requests.map((line) => line.reward_max),
          Math.max,
        ),
        prompt_tokens_per_rollout: usageRecords > 0 ? sum((line) => line.prompt_tokens) / usageRecords : null,
        completion_tokens_per_rollout: usageRecords > 0 ? sum((line) => line.completion_tokens) / usageRecords : null,
        time_ms: Number.isFinite(finished - started) ? finished - started : sum((line) => line.time_ms),
      };
    });
}

/** A steps.jsonl line, or null for one that is not (a torn last line while a request is being written). */
export function parseSeriesRequestLine(text: string): SeriesRequestLine | null {
  try {
    const value = JSON.parse(text) as Partial<SeriesRequestLine> | null;
    if (!value || value.version !== 1 || !Number.isInteger(value.step) || typeof value.records !== 'number') return null;
    return value as SeriesRequestLine;
  } catch {
    return null;
  }
}
