/** The run's counters as the driver keeps them: progress bars, heartbeats, --max-errors and summaries read these. */
import type { ResultRecord } from '../trajectory/result-record.js';

export interface RunProgress {
  /** Rollouts finished in this session (written or about to be, with their group). */
  done: number;
  /** Rollouts this session will run (grows while a streamed dataset is read). */
  total: number;
  /** Rollouts written before this session (resume). */
  alreadyDone: number;
  errored: number;
  rewardSum: number;
  scored: number;
}

export const emptyProgress = (alreadyDone = 0): RunProgress => ({ done: 0, total: 0, alreadyDone, errored: 0, rewardSum: 0, scored: 0 });

/** Counts one finished rollout: errored, or scored with its reward. */
export function countRecord(progress: RunProgress, record: ResultRecord): void {
  progress.done++;
  if (record.error) progress.errored++;
  else if (record.reward !== null) {
    progress.rewardSum += record.reward;
    progress.scored++;
  }
}
