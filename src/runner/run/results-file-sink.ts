/**
 * The results-file sink: whole groups appended to <run>/results.jsonl (ResultsWriter: one write per group, a torn
 * tail cut on reopen), metadata.json kept current on the driver's heartbeat (status "running", progress, pid and
 * host), an optional hook after each group (the Harbor job layout of a terminal run), and what a resumed run has
 * written already. Used by every executor: local, queued and trial runs write the same files.
 */
import type { ResultRecord } from '../trajectory/result-record.js';
import { ResultsWriter } from '../trajectory/results-writer.js';
import type { RecordSink } from './record-sink.js';
import type { CanaryOutcome } from './canaries/canary-contract.js';
import { appendCanary } from './canaries/canary-file.js';
import type { RunProgress } from './run-progress.js';

export interface ResultsFileSinkOptions {
  directory: string;
  /** metadata.json's description of the run, read at each heartbeat (it may grow, e.g. a queued run's worker map). */
  metadata: () => Record<string, unknown>;
  /** Rollouts of the whole run, also those written before a resume: metadata.json's progress.total. */
  plannedRollouts: number;
  /** After each group is in results.jsonl. A throw is logged; the group stays written. */
  afterGroup?: (records: readonly ResultRecord[]) => void | Promise<void>;
  /** Live canaries: each outcome is appended to canaries.jsonl (never results.jsonl), then handed here. */
  onCanary?: (outcome: CanaryOutcome) => void;
  log: (line: string) => void;
}

export interface ResultsFileSink extends RecordSink {
  readonly directory: string;
  close(): void;
}

export function openResultsFileSink(options: ResultsFileSinkOptions): ResultsFileSink {
  const writer = ResultsWriter.open(options.directory);
  return {
    directory: options.directory,
    existing: writer.existing,
    async writeGroup(records) {
      writer.append(records);
      try {
        await options.afterGroup?.(records);
      } catch (error) {
        options.log(`after writing a group of ${records[0]?.example_id ?? '?'}: ${(error as Error).message}`);
      }
    },
    ...(options.onCanary
      ? {
          writeCanary(outcome: CanaryOutcome) {
            appendCanary(options.directory, outcome);
            options.onCanary!(outcome);
          },
        }
      : {}),
    heartbeat(progress: RunProgress) {
      writeRunningMetadata(
        writer,
        options.metadata(),
        { done: progress.alreadyDone + progress.done, total: options.plannedRollouts, errored_this_session: progress.errored },
        options.log,
      );
    },
    close: () => writer.close(),
  };
}

/**
 * The heartbeat write of metadata.json while a run goes on. Called from a timer or a rollout's callback, a failed
 * write (EMFILE, a full disk) thrown there would end the whole run: log it and go on.
 */
export function writeRunningMetadata(
  writer: { writeMetadata(metadata: Record<string, unknown>): void },
  metadata: Record<string, unknown>,
  progress: Record<string, number>,
  log: (line: string) => void,
): void {
  try {
    writer.writeMetadata({ ...metadata, status: 'running', updated_at: new Date().toISOString(), progress });
  } catch (error) {
    log(`could not update metadata.json: ${(error as Error).message}`);
  }
}
