/** The progress bar (cli-progress: a well-kept library for exactly this) with rate, errors and mean reward. */
import { SingleBar } from 'cli-progress';
import type { EvaluationProgress } from '../../runner/scheduler/run-evaluation.js';

export function createProgressDisplay(total: number, enabled: boolean): { update(progress: EvaluationProgress): void; stop(): void } {
  if (!enabled) return { update: () => undefined, stop: () => undefined };
  const bar = new SingleBar(
    { format: 'rollouts {bar} {value}/{total} | {rate}/s | errors {errored} | mean reward {meanReward} | {duration_formatted}', stream: process.stderr, hideCursor: true, etaBuffer: 50 },
  );
  const startedAt = performance.now();
  bar.start(total, 0, { rate: '0.0', errored: 0, meanReward: '-' });
  return {
    update(progress) {
      const seconds = (performance.now() - startedAt) / 1000;
      bar.update(progress.done, {
        rate: (progress.done / Math.max(seconds, 1e-3)).toFixed(1),
        errored: progress.errored,
        meanReward: progress.scored > 0 ? (progress.rewardSum / progress.scored).toFixed(3) : '-',
      });
    },
    stop: () => bar.stop(),
  };
}
