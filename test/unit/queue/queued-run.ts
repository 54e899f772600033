/** The run driver with the queued executor and an in-memory sink: how the queue's unit tests run a producer. */
import type { RolloutJob } from '../../../src/queue/rollout-job.js';
import type { Example } from '../../../src/runner/contract/environment.js';
import { openQueuedExecutor, type RolloutJobTemplate } from '../../../src/queue/queued-executor.js';
import { type RunOutcome, runDriver } from '../../../src/runner/run/run-driver.js';
import type { ResultRecord } from '../../../src/runner/trajectory/result-record.js';

export interface QueuedRun {
  outcome: RunOutcome;
  records: ResultRecord[];
}

export async function runOnQueue(options: {
  redisUrl: string;
  runId: string;
  job: RolloutJobTemplate;
  examples: Example[];
  rolloutsPerExample?: number;
  existing?: ResultRecord[];
  abortSignal: AbortSignal;
  log?: (line: string) => void;
}): Promise<QueuedRun> {
  const rolloutsPerExample = options.rolloutsPerExample ?? 1;
  const log = options.log ?? (() => undefined);
  const executor = await openQueuedExecutor({
    redisUrl: new URL(options.redisUrl),
    runId: options.runId,
    job: options.job,
    plannedRollouts: options.examples.length * rolloutsPerExample,
    log,
  });
  const records: ResultRecord[] = [];
  const outcome = await runDriver({
    task: options.job.environment.name,
    examples: options.examples,
    rolloutsPerExample,
    concurrency: 10,
    executor,
    sink: { existing: options.existing ?? [], writeGroup: (group) => void records.push(...group) },
    abortSignal: options.abortSignal,
    log,
  });
  return { outcome, records };
}

/** What a job shares with the other jobs of its run. */
export function templateOf(job: RolloutJob): RolloutJobTemplate {
  const { version: _version, run_id: _runId, example: _example, rollout_index: _rolloutIndex, ...template } = job;
  return template;
}
