/** The statistics a /v1/rollouts run ends its stream with, from its records (one summary for every executor). */
import type { RolloutRunStats } from '../../http/rollouts-contract.js';
import { summarise } from '../../runner/run/run-summary.js';
import type { ResultRecord } from '../../runner/trajectory/result-record.js';

export function rolloutRunStats(records: readonly ResultRecord[]): RolloutRunStats {
  const summary = summarise(records);
  return {
    rollouts: summary.rollouts,
    errored: summary.errored,
    avg_reward: summary.avg_reward,
    metric_averages: summary.metrics,
    errors_by_code: summary.errorsByCode,
  };
}
