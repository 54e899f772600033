/**
 * The executor contract of the run driver: run one rollout of one example and return its record. Three
 * implementations stand behind it: local (the rollout runner in this process), queued (one job on the Redis queue,
 * the record comes back from the result stream) and trial (a Harbor / Terminal-Bench trial in Docker). Everything
 * around a rollout (groups, statistics, retries, progress, --max-errors, cancellation, resume) is the driver's.
 */
import type { Example } from '../contract/environment.js';
import type { ResultRecord } from '../trajectory/result-record.js';

export interface RolloutWork {
  example: Example;
  rolloutIndex: number;
  /** 1 for the first attempt; the driver retries transient failures unless the executor retries inside. */
  attempt: number;
  abortSignal: AbortSignal;
}

export interface RolloutExecutor {
  /**
   * Runs one rollout. A rollout's own failure is an errored record, never a throw; `undefined` means it was
   * cancelled before it finished: nothing is recorded and --resume redoes it. A throw is a bug or a lost
   * executor: the driver records it as an errored rollout (boundary runner), never as reward 0.
   */
  run(work: RolloutWork): Promise<ResultRecord | undefined>;
  /** True when the executor retries transient failures itself (the queue's job attempts): the driver then does not. */
  readonly retriesInside?: boolean;
  /** Before the first rollout of an example: how many of its rollouts will run (trial containers warm up per task). */
  plan?(example: Example, rollouts: number): void | Promise<void>;
  /**
   * Before anything runs: the keys the sink holds already (a resumed run), read once by the driver. A queue drops its
   * stored copies of them and keeps, for the keys still to run, what workers stored while no producer was reading.
   */
  begin?(written: ReadonlySet<string>): void | Promise<void>;
  /** The keys (`exampleId#rolloutIndex`) the sink has now written durably; a queue drops its copies of them. */
  written?(keys: readonly string[]): void | Promise<void>;
  /**
   * After the last rollout, however the run ended (also when it threw). A queue removes a cancelled run's waiting
   * jobs (a run stopped by --max-errors leaves them to --resume), lets a finished run's keys expire, and disconnects.
   */
  end?(outcome: RunEnd): void | Promise<void>;
}

export interface RunEnd {
  /** The caller cancelled (Ctrl-C, a closed HTTP stream). */
  cancelled: boolean;
  stoppedByMaxErrors: boolean;
  /** Every rollout of the run was finished and handed to the sink. */
  complete: boolean;
}
