/**
 * The reward bracket: the oracle reaches the rubric's maximum on every example (oracle.max-reward), and the
 * do-nothing floor sits below the oracle by a margin (floor.below-oracle). The maximum is the sum of the positive
 * weights, i.e. every rubric function scoring 1 (rubric functions score in [0, 1]).
 */
import type { Rubric } from '../runner/rubrics/rubric.js';
import type { ResultRecord } from '../runner/trajectory/result-record.js';
import { REFERENCE_ANSWER_AGENT } from './check-agents.js';
import { type CheckResult, failed, passed } from './check-report.js';

const TOLERANCE = 1e-9;

export const maximumReward = (rubric: Rubric): number => rubric.reduce((sum, item) => sum + Math.max(0, item.weight), 0);

const meanReward = (records: readonly ResultRecord[]): number | null => {
  const scored = records.filter((record) => record.reward !== null);
  return scored.length === 0 ? null : scored.reduce((sum, record) => sum + record.reward!, 0) / scored.length;
};

const errorsOf = (records: readonly ResultRecord[]) =>
  records.filter((record) => record.error !== null).map((record) => ({ example: record.example_id, error: record.error!.message.slice(0, 300) }));

/** `maximum`: the rubric's (maximumReward), or 1 for a verifier whose reward is a share of tests passed. */
export function checkOracle(records: readonly ResultRecord[], maximum: number, oracleName: string): CheckResult {
  if (maximum <= 0) return failed('oracle.max-reward', 'error', 'the rubric has no positive weight: no answer can earn a reward', { maximum });
  const misses = records
    .filter((record) => record.reward !== null && record.reward < maximum - TOLERANCE)
    .map((record) => ({ example: record.example_id, reward: record.reward, final_answer: record.final_answer?.slice(0, 200) ?? null }));
  const errored = errorsOf(records);
  const evidence = { oracle: oracleName, maximum, mean: meanReward(records), examples: records.length, misses, errored };
  if (misses.length > 0 || errored.length > 0) {
    // The fallback oracle only answers the gold text: an environment whose reward needs tool work must ship its own.
    const hint =
      oracleName === REFERENCE_ANSWER_AGENT
        ? '; the environment exports no oracle agent (export const agents = { oracle: defineAgent(...) }, or pass --oracle <agent>)'
        : '';
    return failed(
      'oracle.max-reward',
      'error',
      `the oracle (${oracleName}) misses the maximum reward ${maximum} on ${misses.length} and errors on ${errored.length} of ${records.length} examples${hint}`,
      evidence,
    );
  }
  return passed('oracle.max-reward', `the oracle (${oracleName}) reaches the maximum reward ${maximum} on all ${records.length} examples`, evidence);
}

export function checkFloor(floor: readonly ResultRecord[], oracle: readonly ResultRecord[], maximum: number, margin: number): CheckResult {
  const floorMean = meanReward(floor);
  const oracleMean = meanReward(oracle);
  const paid = floor.filter((record) => (record.reward ?? 0) > TOLERANCE).map((record) => ({ example: record.example_id, reward: record.reward }));
  const errored = errorsOf(floor);
  const evidence = { floor_mean: floorMean, oracle_mean: oracleMean, margin, maximum, paid, errored };
  if (floorMean === null || oracleMean === null)
    return failed('floor.below-oracle', 'error', 'no scored rollout to compare: the floor or the oracle errored on every example', evidence);
  if (oracleMean < margin * maximum)
    return failed(
      'floor.below-oracle',
      'error',
      `the oracle's mean reward ${oracleMean.toFixed(3)} is too low to bracket the floor (${floorMean.toFixed(3)}): see oracle.max-reward`,
      evidence,
    );
  if (floorMean > oracleMean - margin * maximum) {
    return failed(
      'floor.below-oracle',
      'error',
      `an empty answer earns ${floorMean.toFixed(3)} on average, within ${margin} × ${maximum} of the oracle's ${oracleMean.toFixed(3)}: the rubric pays for doing nothing`,
      evidence,
    );
  }
  if (errored.length > 0)
    return failed('floor.below-oracle', 'warning', `the rubric errors on an empty answer for ${errored.length} examples (score it 0 instead)`, evidence);
  return passed('floor.below-oracle', `an empty answer earns ${floorMean.toFixed(3)}, the oracle ${oracleMean.toFixed(3)}`, evidence);
}
