/**
 * Progress on stderr. On a terminal: the cli-progress bar (a well-kept library for exactly this) with rate,
 * errors, mean reward and ETA. Elsewhere (nohup, Slurm, CI logs): one plain line every `intervalS` seconds, so
 * a log shows a run moving, and a last line when it ends. The lines are due by the clock, checked on every update
 * as well as by a timer: an in-process agent whose rollouts chain promise to promise (the wiki baseline) can keep
 * timers from firing for the whole run, yet still reports each finished rollout.
 */
import { SingleBar } from 'cli-progress';
import type { EvaluationProgress } from '../../runner/scheduler/run-evaluation.js';

export interface ProgressDisplay {
  update(progress: EvaluationProgress): void;
  stop(): void;
}

export function createProgressDisplay(
  total: number,
  options: { enabled: boolean; tty: boolean; intervalS: number; write?: (line: string) => void; concurrency?: () => string },
): ProgressDisplay {
  if (!options.enabled) return { update: () => undefined, stop: () => undefined };
  const concurrency = options.concurrency ?? (() => '');
  return options.tty
    ? terminalBar(total, concurrency)
    : periodicLines(total, options.intervalS, options.write ?? ((line) => process.stderr.write(`${line}\n`)), concurrency);
}

/** The admission level, when the run has one: ` | in flight 37/48 (auto, max 256)`. */
const part = (text: string) => (text === '' ? '' : ` | ${text}`);

function terminalBar(total: number, concurrency: () => string): ProgressDisplay {
  const bar = new SingleBar({
    format: 'rollouts {bar} {value}/{total} | {rate}/s | errors {errored} | mean reward {meanReward}{concurrency} | {duration_formatted} | ETA {eta_formatted}',
    stream: process.stderr,
    hideCursor: true,
    etaBuffer: 50,
  });
  const startedAt = performance.now();
  bar.start(total, 0, { rate: '0.0', errored: 0, meanReward: '-', concurrency: part(concurrency()) });
  return {
    update(progress) {
      bar.update(progress.done, {
        rate: rate(progress, startedAt).toFixed(1),
        errored: progress.errored,
        meanReward: meanReward(progress),
        concurrency: part(concurrency()),
      });
    },
    stop: () => bar.stop(),
  };
}

function periodicLines(total: number, intervalS: number, write: (line: string) => void, concurrency: () => string): ProgressDisplay {
  const startedAt = performance.now();
  let latest: EvaluationProgress = { done: 0, total, errored: 0, rewardSum: 0, scored: 0 };
  let lastLineAt = startedAt;
  const line = () => {
    lastLineAt = performance.now();
    const perSecond = rate(latest, startedAt);
    const remaining = total - latest.done;
    const eta = latest.done === 0 ? '?' : formatSeconds(remaining / Math.max(perSecond, 1e-9));
    const percent = total > 0 ? ((100 * latest.done) / total).toFixed(1) : '100.0';
    write(
      `[eval] progress ${latest.done}/${total} (${percent}%) | ${perSecond.toFixed(2)}/s | errors ${latest.errored} | mean reward ${meanReward(latest)}${part(concurrency())} | elapsed ${formatSeconds((performance.now() - startedAt) / 1000)} | ETA ${eta}`,
    );
  };
  const timer = setInterval(line, intervalS * 1000);
  timer.unref();
  return {
    update(progress) {
      latest = progress;
      if (performance.now() - lastLineAt >= intervalS * 1000 && progress.done < total) line();
    },
    stop() {
      clearInterval(timer);
      line();
    },
  };
}

const rate = (progress: EvaluationProgress, startedAt: number) => progress.done / Math.max((performance.now() - startedAt) / 1000, 1e-3);
const meanReward = (progress: EvaluationProgress) => (progress.scored > 0 ? (progress.rewardSum / progress.scored).toFixed(3) : '-');

function formatSeconds(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const whole = Math.round(seconds);
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const rest = whole % 60;
  return hours > 0 ? `${hours}h${String(minutes).padStart(2, '0')}m` : minutes > 0 ? `${minutes}m${String(rest).padStart(2, '0')}s` : `${rest}s`;
}
