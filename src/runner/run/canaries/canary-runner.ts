/**
 * The canary runner: which examples are canaried (a share `rate` of them, chosen by a hash of the id so a resumed
 * run picks the same ones), and the verdict over one oracle rollout and one floor rollout, run one after the other
 * through executors the caller made for those agents (the same executor kind as the run's own rollouts).
 */
import { createHash } from 'node:crypto';
import type { RolloutExecutor } from '../rollout-executor.js';
import type { ResultRecord } from '../../trajectory/result-record.js';
import type { CanaryRunner, Quarantine, QuarantineReason } from './canary-contract.js';

const TOLERANCE = 1e-9;

export interface CanaryRunnerOptions {
  /** Share of examples canaried, in (0, 1]; 1 canaries every example. */
  rate: number;
  oracle: RolloutExecutor;
  floor: RolloutExecutor;
  /** The reward the oracle must reach (the rubric's maximum: the sum of its positive weights). */
  maximumReward: number;
}

/** Deterministic: the first 32 bits of sha256(id) as a share of 2^32, below the rate. */
export function isCanaried(exampleId: string, rate: number): boolean {
  if (rate >= 1) return true;
  if (rate <= 0) return false;
  return createHash('sha256').update(exampleId).digest().readUInt32BE(0) / 2 ** 32 < rate;
}

export function quarantineOf(exampleId: string, oracle: ResultRecord, floor: ResultRecord, maximumReward: number): Quarantine | null {
  const reasons: QuarantineReason[] = [];
  if (oracle.error) reasons.push('oracle-errored');
  else if ((oracle.reward ?? 0) < maximumReward - TOLERANCE) reasons.push('oracle-missed');
  // A floor that errors (a rubric that throws on an empty answer) is not paid: no quarantine for that.
  if (!floor.error && (floor.reward ?? 0) > TOLERANCE) reasons.push('floor-scored');
  if (reasons.length === 0) return null;
  return { example_id: exampleId, reasons, oracle_reward: oracle.reward, floor_reward: floor.reward, oracle_error: oracle.error?.code ?? null };
}

export function createCanaryRunner(options: CanaryRunnerOptions): CanaryRunner {
  return {
    async check(example, abortSignal) {
      if (!isCanaried(example.id, options.rate)) return undefined;
      // One after the other: the canary holds one of the run's concurrency slots, never two.
      const oracle = await options.oracle.run({ example, rolloutIndex: 0, attempt: 1, abortSignal });
      if (!oracle || abortSignal.aborted) return undefined;
      const floor = await options.floor.run({ example, rolloutIndex: 0, attempt: 1, abortSignal });
      if (!floor || abortSignal.aborted) return undefined;
      return { example_id: example.id, oracle, floor, quarantine: quarantineOf(example.id, oracle, floor, options.maximumReward) };
    },
  };
}
