/**
 * Live canaries (issue 25): during a run, extra rollouts of an example run the environment's oracle and a do-nothing
 * floor. An example whose oracle misses the maximum reward (or errors) or whose floor scores is quarantined: its
 * rollouts still run, each record carries `quarantine`, metadata.json lists it and a trainer's stream gets a line of
 * its own. Canary rollouts are never written to results.jsonl, so they never enter statistics, groups, pass@k or
 * samples; they go to canaries.jsonl beside it.
 */
import type { Example } from '../../contract/environment.js';
import type { ResultRecord } from '../../trajectory/result-record.js';

export type QuarantineReason = 'oracle-missed' | 'oracle-errored' | 'floor-scored';

/** Why an example is quarantined, as metadata.json, the records and the rollout stream carry it. */
export interface Quarantine {
  example_id: string;
  reasons: QuarantineReason[];
  /** The canary rewards (null when that canary errored). */
  oracle_reward: number | null;
  floor_reward: number | null;
  /** The oracle's error code when it errored. */
  oracle_error: string | null;
}

export interface CanaryOutcome {
  example_id: string;
  oracle: ResultRecord;
  floor: ResultRecord;
  /** Null when the example passed both canaries. */
  quarantine: Quarantine | null;
}

/** What the run driver asks before an example's group runs; a canary's own failure is data, never a throw. */
export interface CanaryRunner {
  /** The canary pair for this example, or undefined when it is not canaried (or the run was cancelled meanwhile). */
  check(example: Example, abortSignal: AbortSignal): Promise<CanaryOutcome | undefined>;
}
