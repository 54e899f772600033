/**
 * Where the run driver puts records: a results file (results.jsonl + metadata.json, optionally the Harbor job
 * layout and ATIF trajectories) or an HTTP NDJSON stream. The sink also tells the driver what a resumed run has
 * already written, so resume keys are read in one place.
 */
import type { ResultRecord } from '../trajectory/result-record.js';
import type { CanaryOutcome } from './canaries/canary-contract.js';
import type { RunProgress } from './run-progress.js';

export interface RecordSink {
  /** Records written before (a resumed run): their keys are skipped and they count in their group's statistics. */
  readonly existing: readonly ResultRecord[];
  /** One whole group with its statistics, in rollout order. Resolves once it is written durably. */
  writeGroup(records: ResultRecord[]): void | Promise<void>;
  /** On the driver's heartbeat timer and after every group, so a long rollout never looks stalled. */
  heartbeat?(progress: RunProgress): void;
  /** A canaried example's oracle and floor records and verdict (canaries/): never part of a group. */
  writeCanary?(outcome: CanaryOutcome): void | Promise<void>;
}
