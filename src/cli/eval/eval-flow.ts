/**
 * The one flow of `corral eval`, whatever runs the rollouts (here, on queue workers, or as terminal trials): the
 * run driver with the caller's executor and the results-file sink, Ctrl-C handling (the first cancels cleanly, a
 * second exits 130 at once), the progress display, and the end of a run: group statistics restated over whole
 * groups, the final metadata.json, the summary, ATIF trajectories for CLI agents, samples.jsonl, the exit status.
 */
import type { DatasetSource } from '../../runner/contract/environment.js';
import type { RolloutExecutor } from '../../runner/run/rollout-executor.js';
import { openResultsFileSink } from '../../runner/run/results-file-sink.js';
import type { CanaryOutcome, CanaryRunner } from '../../runner/run/canaries/canary-contract.js';
import { canaryMetadata, readCanaries } from '../../runner/run/canaries/canary-file.js';
import { runDriver } from '../../runner/run/run-driver.js';
import { formatSummary, summarise, summaryMetadata } from '../../runner/run/run-summary.js';
import { restateGroupStats } from '../../runner/scheduler/group-stats.js';
import type { ResultRecord } from '../../runner/trajectory/result-record.js';
import { ResultsWriter } from '../../runner/trajectory/results-writer.js';
import { type RunStatus, evalExitCode } from './eval-exit.js';
import { type EvalOptions, maxErrorsLimit } from './eval-options.js';
import { createProgressDisplay } from './progress-display.js';
import { AdmissionController, type AdmissionSnapshot } from '../../runner/run/admission/admission-controller.js';
import type { LoadObserver } from '../../runner/run/admission/load-signals.js';
import { watchServerLoad } from '../../runner/run/admission/server-load-watch.js';
import { writeRunSamples } from './run-samples.js';

/** What an executor choice hands the flow: the executor, the run's metadata, and how to describe, cancel and close it. */
export interface EvalExecution {
  executor: RolloutExecutor;
  /** metadata.json's description of the run (runMetadata); read again at each heartbeat. */
  metadata: Record<string, unknown>;
  /** More of metadata.json, read at each heartbeat and at the end (a queued run's worker map, a trial run's settings). */
  extraMetadata?: () => Record<string, unknown>;
  /** The run's first line: what runs where (the flow adds how many rollouts were done before and the directory). */
  describe: string;
  /** What the first Ctrl-C does, for the line that says so. */
  cancelling: string;
  /** The model server's Prometheus /metrics (vLLM: requests running and waiting, KV-cache usage), read while the run goes when it serves them. */
  serverMetricsURL?: URL;
  /** Releases what the run holds (the agent, the tool runtime), however it ended. */
  close: () => Promise<void>;
  /** Feeds load signals of what the executor holds (the sandbox pool's waits) to the run's admission controller; returns the unsubscribe. */
  observeLoad?: (observer: LoadObserver) => () => void;
  /** After each group is in results.jsonl (the Harbor job layout of a terminal run). */
  afterGroup?: (records: readonly ResultRecord[]) => void | Promise<void>;
  /**
   * The rollouts run on queue workers, which pace themselves: `-c auto` then enqueues up to the ceiling at once, since
   * the producer sees none of the model's or the pool's signals and a ramp there would only hold jobs back.
   */
  pacedByWorkers?: boolean;
  /** Live canaries (--canaries RATE): run by the driver before each canaried example's group, kept in canaries.jsonl. */
  canaries?: { runner: CanaryRunner; rate: number };
}

export interface EvalFlowOptions extends EvalExecution {
  directory: string;
  /** The environment's name (the task of a record the driver makes itself). */
  task: string;
  examples: DatasetSource;
  rolloutsPerExample: number;
  /** Rollouts of the whole run, those written before a resume included. */
  plannedRollouts: number;
  options: Pick<EvalOptions, 'concurrency' | 'maxConcurrency' | 'maxErrors' | 'progress' | 'progressInterval' | 'samples'>;
  /** Also write <run>/atif/<example>/<rollout>/trajectory.json for every rollout (a CLI coding agent's run). */
  atif: boolean;
  startedAt: number;
  log: (line: string) => void;
}

/** Runs the whole flow and returns the exit status (src/cli/eval/eval-exit.ts). */
export async function runEvalFlow(flow: EvalFlowOptions): Promise<number> {
  const { options, log } = flow;
  // The quarantine list rides on metadata.json (canaries.jsonl holds the canary records); a resume reads it back.
  const canaryOutcomes = flow.canaries ? readCanaries(flow.directory) : undefined;
  const admission = new AdmissionController(
    options.concurrency !== 'auto'
      ? { mode: 'fixed', maxConcurrency: options.concurrency }
      : flow.pacedByWorkers
        ? { mode: 'fixed', maxConcurrency: options.maxConcurrency }
        : { mode: 'auto', maxConcurrency: options.maxConcurrency },
  );
  // The level over time is part of the run's record (docs/admission.md).
  const metadataNow = () => ({
    ...flow.metadata,
    ...flow.extraMetadata?.(),
    ...(flow.canaries && canaryOutcomes ? canaryMetadata(flow.canaries.rate, canaryOutcomes) : {}),
    admission: admission.snapshot(),
  });
  let sink: ReturnType<typeof openResultsFileSink>;
  try {
    sink = openResultsFileSink({
      directory: flow.directory,
      metadata: metadataNow,
      plannedRollouts: flow.plannedRollouts,
      ...(flow.afterGroup ? { afterGroup: flow.afterGroup } : {}),
      ...(canaryOutcomes
        ? {
            onCanary: (outcome: CanaryOutcome) => {
              canaryOutcomes.set(outcome.example_id, outcome);
              if (outcome.quarantine) log(`quarantined ${outcome.example_id}: ${outcome.quarantine.reasons.join(', ')} (its rollouts still run, flagged)`);
            },
          }
        : {}),
      log,
    });
  } catch (error) {
    // No run without its directory; what the executor opened (a queue's connections) must not keep the process alive.
    await flow.executor.end?.({ cancelled: false, stoppedByMaxErrors: false, complete: false });
    await flow.close();
    throw error;
  }
  log(`${flow.describe}, ${sink.existing.length} already done -> ${flow.directory}`);
  const controller = new AbortController();
  const onSignal = () => {
    if (controller.signal.aborted) {
      ResultsWriter.writeMetadataTo(flow.directory, { ...metadataNow(), status: 'cancelled', updated_at: new Date().toISOString() });
      process.exit(130);
    }
    log(`cancelling: ${flow.cancelling} (Ctrl-C again to quit at once)`);
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const display = createProgressDisplay(flow.plannedRollouts - sink.existing.length, {
    enabled: options.progress,
    tty: process.stderr.isTTY === true,
    intervalS: options.progressInterval,
    concurrency: () => concurrencyText(admission.snapshot()),
  });
  const stopObserving = flow.observeLoad?.(admission);
  const stopServerLoad = flow.serverMetricsURL ? watchServerLoad(flow.serverMetricsURL, admission) : undefined;
  let outcome: Awaited<ReturnType<typeof runDriver>>;
  try {
    outcome = await runDriver({
      task: flow.task,
      examples: flow.examples,
      rolloutsPerExample: flow.rolloutsPerExample,
      concurrency: admission,
      executor: flow.executor,
      sink,
      abortSignal: controller.signal,
      maxErrors: maxErrorsLimit(options.maxErrors, flow.plannedRollouts),
      ...(options.maxErrors === undefined ? {} : { maxErrorsAsGiven: options.maxErrors }),
      heartbeatMs: Math.max(1, options.progressInterval) * 1000,
      onProgress: (progress) => display.update(progress),
      ...(flow.canaries ? { canaries: flow.canaries.runner } : {}),
      log,
    });
  } finally {
    stopObserving?.();
    stopServerLoad?.();
    display.stop();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await flow.close().catch((error: unknown) => log(`closing the run: ${(error as Error).message}`));
    sink.close();
  }
  if (flow.atif) {
    // A CLI agent's rollout is also an ATIF trajectory (issue 12), whichever executor ran it.
    const { exportRunAtif } = await import('../../export/atif-run-export.js');
    const exported = await exportRunAtif(flow.directory);
    log(`wrote ${exported.written.length} ATIF trajectories to ${exported.outDirectory}`);
  }
  const status = finishEvalRun(flow.directory, metadataNow(), {
    startedAt: flow.startedAt,
    plannedRollouts: flow.plannedRollouts,
    rolloutsPerExample: flow.rolloutsPerExample,
    stoppedByMaxErrors: outcome.stoppedByMaxErrors,
    cancelled: outcome.cancelled && !outcome.stoppedByMaxErrors,
    log,
  });
  if (options.samples) await writeRunSamples(flow.directory, log);
  return status;
}

/** The progress line's part: `in flight 37/48 (auto, max 256)` or `in flight 8/8`. */
function concurrencyText(snapshot: AdmissionSnapshot): string {
  return `in flight ${snapshot.in_flight}/${snapshot.level}${snapshot.mode === 'auto' ? ` (auto, max ${snapshot.max})` : ''}`;
}

export interface RunEnding {
  startedAt: number;
  plannedRollouts: number;
  rolloutsPerExample: number;
  stoppedByMaxErrors: boolean;
  cancelled: boolean;
  log: (line: string) => void;
}

/** Restates group statistics, writes the final metadata.json and the summary; returns the exit status. */
export function finishEvalRun(directory: string, metadata: Record<string, unknown>, run: RunEnding): number {
  // Records written before a resume (or a group cut by SIGKILL) carry statistics of part of their group.
  const { records, changed } = restateGroupStats(ResultsWriter.readRecords(directory));
  if (changed) {
    ResultsWriter.replaceRecords(directory, records);
    run.log('restated group statistics over whole groups (records written before the resume saw part of their group)');
  }
  const summary = summarise(records, run.rolloutsPerExample);
  const complete = summary.rollouts === run.plannedRollouts;
  const status: RunStatus = run.stoppedByMaxErrors ? 'stopped' : run.cancelled ? 'cancelled' : complete ? 'complete' : 'incomplete';
  ResultsWriter.writeMetadataTo(directory, {
    ...metadata,
    status,
    updated_at: new Date().toISOString(),
    time_ms: Date.now() - run.startedAt,
    ...summaryMetadata(summary),
  });
  process.stdout.write(`${formatSummary(summary, directory)}\n`);
  if (summary.errored > 0) run.log(`${summary.errored} of ${summary.rollouts} rollouts errored (errors by code above)`);
  if (status === 'incomplete') run.log(`run incomplete: ${summary.rollouts} of ${run.plannedRollouts} rollouts written; --resume ${directory} continues it`);
  return evalExitCode(status, summary.errored);
}
