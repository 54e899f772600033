/**
 * The rescore executor of the run driver: a "rollout" is the source run's record of that key, scored again by the
 * given environment's parser and rubric, `repeats` times (the reward and metrics are the means; every value is kept
 * in `rescore` so judge variance can be read). An errored source record stays errored, never re-scored to 0; a
 * scoring failure errors the new record (boundary rubric) as it would in a rollout.
 */
import type { Environment } from '../contract/environment.js';
import type { RolloutExecutor } from '../run/rollout-executor.js';
import { describeFailure } from '../scheduler/rollout-error.js';
import type { RecordLineage } from '../trajectory/record-lineage.js';
import { type ResultRecord, resultKey } from '../trajectory/result-record.js';
import { exampleOfRecord, trajectoryOfRecord } from './record-trajectory.js';
import type { SourceRun } from './source-run.js';
import { type TrajectoryScore, scoreTrajectory } from './trajectory-only-scoring.js';

export interface RescoreExecutorOptions {
  source: SourceRun;
  environment: Environment;
  /** Scorings per record (default 1). */
  repeats: number;
}

/** What `repeats` scorings of one record gave, per metric and for the reward. */
export interface RescoreRepeats {
  rewards: number[];
  metrics: Record<string, number[]>;
}

export function rescoreExecutor(options: RescoreExecutorOptions): RolloutExecutor {
  return {
    // The source's attempts are kept: nothing here is retried.
    retriesInside: true,
    async run({ example, rolloutIndex, abortSignal }) {
      const key = resultKey(example.id, rolloutIndex);
      const source = options.source.byKey.get(key);
      if (!source) return undefined;
      // A re-scored replay keeps which turns its source copied, so samples still never train on them.
      const replayed = source.lineage?.replayed_turns;
      const lineage: RecordLineage = {
        kind: 'rescore',
        source_run: options.source.directory,
        source_record: key,
        ...(replayed ? { replayed_turns: replayed } : {}),
      };
      if (source.error !== null) return { ...withoutMetrics(source), group: null, lineage };
      const started = performance.now();
      const scores: TrajectoryScore[] = [];
      try {
        for (let index = 0; index < options.repeats; index++)
          scores.push(await scoreTrajectory(options.environment, exampleOfRecord(source), trajectoryOfRecord(source), abortSignal));
      } catch (error) {
        const failure = describeFailure(error, 'rubric');
        return { ...withoutMetrics(source), reward: null, metrics: {}, group: null, error: failure, task: options.environment.name, lineage };
      }
      const metrics = meanMetrics(scores);
      const record: ResultRecord = {
        ...withoutMetrics(source),
        ...metrics,
        task: options.environment.name,
        final_answer: scores[0]!.answer,
        reward: mean(scores.map((score) => score.reward)),
        metrics,
        group: null,
        timing: { ...source.timing, scoring_ms: Math.round((performance.now() - started) * 1000) / 1000 },
        lineage,
      };
      if (options.repeats > 1) record['rescore'] = repeatsOf(scores);
      return record;
    },
  };
}

/** The source record without its metrics spread as top-level keys (vf-eval's layout), so a dropped metric does not linger. */
function withoutMetrics(record: ResultRecord): ResultRecord {
  const copy: ResultRecord = { ...record };
  for (const name of Object.keys(record.metrics ?? {})) delete copy[name];
  delete copy['rescore'];
  return copy;
}

const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

function meanMetrics(scores: readonly TrajectoryScore[]): Record<string, number> {
  const names = Object.keys(scores[0]!.metrics);
  return Object.fromEntries(names.map((name) => [name, mean(scores.map((score) => score.metrics[name] ?? 0))]));
}

function repeatsOf(scores: readonly TrajectoryScore[]): RescoreRepeats {
  const names = Object.keys(scores[0]!.metrics);
  return {
    rewards: scores.map((score) => score.reward),
    metrics: Object.fromEntries(names.map((name) => [name, scores.map((score) => score.metrics[name] ?? 0)])),
  };
}
