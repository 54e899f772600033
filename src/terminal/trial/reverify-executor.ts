/**
 * The re-verify executor of the run driver (`corral rescore <terminal run>`): a "rollout" is the source run's trial
 * of that key, verified again by its task's tests as they are now, in a container brought to the agent's kept final
 * file system; the agent does not run. Each re-verified trial gets a new Harbor trial folder (verifier logs, result.json
 * and a copy of the archive, so the new run can be re-verified in turn) and a record that is the source's with the
 * new reward, metrics, verifier outcome and lineage. Trials that never reached the verifier (an image or container
 * failure, a model that failed, a disk over storage_mb) are copied unchanged.
 */
import { lstatSync } from 'node:fs';
import { copyFile, link, rm } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import type Docker from 'dockerode';
import { CorralError } from '../../core/errors.js';
import type { SourceRun } from '../../runner/replay/source-run.js';
import type { RolloutExecutor } from '../../runner/run/rollout-executor.js';
import type { RecordLineage } from '../../runner/trajectory/record-lineage.js';
import { type ResultRecord, resultKey } from '../../runner/trajectory/result-record.js';
import { harborTrialName, writeHarborTrial } from '../harbor-job-layout.js';
import { ensureHostFolder } from '../host-folder.js';
import type { TerminalTask } from '../terminal-task.js';
import { FINAL_FILE_SYSTEM_FILE } from './final-file-system.js';
import { harborTrialInput } from './harbor-trial-input.js';
import { type ReverifyOutcome, reverifyTrial } from './reverify-trial.js';
import type { TrialNetworkPolicy } from './trial-container-options.js';
import { type FinalFileSystemInfo, trialRecord } from './trial-record.js';
import type { TrialResult } from './trial-result.js';

/** What to do with one source record: verify it again from its archive, or copy it. */
export type ReverifyPlan = { kind: 'verify'; archive: string; fileSystem: FinalFileSystemInfo } | { kind: 'copy' } | { kind: 'no-file-system'; reason: string };

/**
 * A trial that reached its verifier is verified again; an errored one without a kept file system is copied (it stays
 * errored), and a scored one without it cannot be re-verified (the caller refuses the run, naming it).
 */
export function reverifyPlan(record: ResultRecord, sourceDirectory: string): ReverifyPlan {
  const reachedVerifier = record.info['verifier_phase'] != null || record.error?.boundary === 'rubric';
  if (!reachedVerifier) return { kind: 'copy' };
  const fileSystem = record.info['final_file_system'] as FinalFileSystemInfo | null | undefined;
  const missing = (reason: string): ReverifyPlan => (record.error ? { kind: 'copy' } : { kind: 'no-file-system', reason });
  if (!fileSystem) return missing('the run kept no final file systems (`corral eval terminal --keep-file-system` keeps them; not for trials on queue workers)');
  if (!fileSystem.path) return missing(`it was not kept: ${fileSystem.reason ?? 'no reason recorded'}`);
  const archive = resolve(sourceDirectory, fileSystem.path);
  if (!archive.startsWith(`${sourceDirectory}${sep}`)) return missing(`its path ${fileSystem.path} leaves the run directory`);
  try {
    if (!lstatSync(archive).isFile()) return missing(`${archive} is not a regular file`);
  } catch {
    return missing(`${archive} is missing`);
  }
  return { kind: 'verify', archive, fileSystem };
}

export interface ReverifyExecutorOptions {
  docker: Docker;
  source: SourceRun;
  /** The tasks as they are now, with the image each trial's changes apply to, by example id. */
  tasks: ReadonlyMap<string, { task: TerminalTask; image: string }>;
  /** The new run directory (Harbor's job layout). */
  directory: string;
  policy: TrialNetworkPolicy;
  timeoutMultiplier: number;
  /** Takes container and image removals off the critical path; the caller awaits them at the end. */
  retire: (work: () => Promise<unknown>) => void;
  /** For Harbor's result.json: the source run's agent and model (null for model-free agents). */
  agentName: string;
  modelName: string | null;
}

export function reverifyExecutor(options: ReverifyExecutorOptions): RolloutExecutor {
  return {
    // The source's attempts stand; a re-verification is not retried.
    retriesInside: true,
    async run({ example, rolloutIndex, abortSignal }) {
      const key = resultKey(example.id, rolloutIndex);
      const source = options.source.byKey.get(key);
      if (!source) return undefined;
      const lineage: RecordLineage = { kind: 'rescore', source_run: options.source.directory, source_record: key };
      const plan = reverifyPlan(source, options.source.directory);
      if (plan.kind !== 'verify') return { ...source, group: null, lineage };
      const entry = options.tasks.get(example.id);
      if (!entry) throw new CorralError('TASK_ERR_NOT_FOUND', `no task named ${example.id} to re-verify`);
      const { task, image } = entry;
      const trialName = harborTrialName(task.name);
      const trialDirectory = join(options.directory, trialName);
      await ensureHostFolder(trialDirectory);
      const startedAt = new Date().toISOString();
      const clock = performance.now();
      let outcome: ReverifyOutcome;
      try {
        outcome = await reverifyTrial(options.docker, {
          task,
          image,
          archive: plan.archive,
          trialDirectory,
          policy: options.policy,
          timeoutMultiplier: options.timeoutMultiplier,
          abortSignal,
          retire: options.retire,
        });
      } catch (error) {
        await rm(trialDirectory, { recursive: true, force: true });
        if (CorralError.hasCode(error, 'ERR_ABORTED')) return undefined;
        throw error;
      }
      await keepArchive(plan.archive, join(trialDirectory, FINAL_FILE_SYSTEM_FILE));
      const trial = trialOf(source, task, outcome, { startedAt, totalMs: Math.round(performance.now() - clock), agentName: options.agentName, plan });
      await writeHarborTrial(
        options.directory,
        harborTrialInput(task, trial, {
          trialName,
          rolloutIndex,
          modelName: options.modelName,
          datasetName: 'terminal',
          timeoutMultiplier: options.timeoutMultiplier,
        }),
      );
      return reverifiedRecord(source, trialRecord(task, rolloutIndex, trial, { image: plan.fileSystem.image, trialName }), outcome, lineage);
    },
  };
}

/** The new run keeps the same archive: a hard link when both runs share a file system, else a copy. */
async function keepArchive(from: string, to: string): Promise<void> {
  try {
    await link(from, to);
  } catch {
    await copyFile(from, to);
  }
}

/** The source trial with the new verifier outcome, as trial-record.ts and Harbor's layout read a trial. */
function trialOf(
  source: ResultRecord,
  task: TerminalTask,
  outcome: ReverifyOutcome,
  run: { startedAt: string; totalMs: number; agentName: string; plan: Extract<ReverifyPlan, { kind: 'verify' }> },
): TrialResult {
  const agentPhase = (source.info['agent_phase'] ?? {}) as { exit_code?: number | null; timed_out?: boolean; error?: { code: string; message: string } | null };
  const sourceWindows = (source.info['windows'] ?? {}) as TrialResult['windows'];
  const finishedAt = new Date().toISOString();
  // A restore that failed is the sandbox's failure (boundary sandbox); a verifier without a reward is the rubric's.
  const restoreFailed = outcome.error?.details['phase'] === 'restore';
  const error = outcome.error
    ? {
        code: outcome.error.code,
        message: outcome.error.message,
        phase: restoreFailed ? ('container' as const) : ('verifier' as const),
        details: { ...outcome.error.details },
      }
    : null;
  return {
    task: task.name,
    agent: run.agentName,
    reward: outcome.rewards?.reward ?? null,
    rewards: outcome.rewards?.rewards ?? null,
    rewardSource: outcome.rewards?.source ?? null,
    error,
    agentPhase: {
      exitCode: agentPhase.exit_code ?? null,
      timedOut: agentPhase.timed_out ?? false,
      error: agentPhase.error ?? null,
      summary: source.final_answer,
      details: { completion: source.completion, turns: source.turns, tokens: source.tokens ?? [], usage: source.usage, tool_calls: source.timing.tool_calls },
    },
    verifierPhase: restoreFailed ? null : { exitCode: outcome.exitCode, timedOut: outcome.timedOut },
    finalFileSystem: { kept: true, changes: run.plan.fileSystem.changes, bytes: run.plan.fileSystem.bytes },
    timings: {
      ...sourcePhases(source),
      verifier_ms: outcome.durationMs,
      commit_ms: outcome.commitMs,
      test_ms: outcome.testMs,
      total_ms: run.totalMs,
    },
    windows: {
      // The agent's own windows are the source's: it did not run again.
      ...(sourceWindows.container ? { container: sourceWindows.container } : {}),
      ...(sourceWindows.agent ? { agent: sourceWindows.agent } : {}),
      trial: { startedAt: run.startedAt, finishedAt },
      verifier: { startedAt: run.startedAt, finishedAt },
    },
    directories: { trial: '', agent: null, verifier: outcome.logDirectory, artifacts: null },
  };
}

function sourcePhases(source: ResultRecord): TrialResult['timings'] {
  const phases = ((source.timing as { phases?: Partial<TrialResult['timings']> }).phases ?? {}) as Partial<TrialResult['timings']>;
  return {
    image_ms: phases.image_ms ?? 0,
    container_start_ms: phases.container_start_ms ?? 0,
    container_wait_ms: phases.container_wait_ms ?? 0,
    agent_ms: phases.agent_ms ?? 0,
    verifier_ms: 0,
    commit_ms: 0,
    test_ms: 0,
    total_ms: 0,
  };
}

/**
 * The source record with what the verifier now says: reward, metrics (one top-level key each, the source's dropped),
 * error, the verifier's outcome and the new trial in info, its timings (restore_ms added) and the lineage.
 */
function reverifiedRecord(source: ResultRecord, fresh: ResultRecord, outcome: ReverifyOutcome, lineage: RecordLineage): ResultRecord {
  const copy: ResultRecord = { ...source };
  for (const name of Object.keys(source.metrics ?? {})) delete copy[name];
  const timing = fresh.timing as ResultRecord['timing'] & { phases: Record<string, number> };
  return {
    ...copy,
    ...fresh.metrics,
    reward: fresh.reward,
    metrics: fresh.metrics,
    error: fresh.error,
    group: null,
    info: {
      ...source.info,
      trial_name: fresh.info['trial_name'],
      reward_source: fresh.info['reward_source'],
      verifier_phase: fresh.info['verifier_phase'],
      final_file_system: fresh.info['final_file_system'],
      reverified: { source_trial: source.info['trial_name'] ?? null, windows: fresh.info['windows'] },
    },
    timing: {
      ...source.timing,
      scoring_ms: outcome.durationMs + outcome.restoreMs,
      phases: { ...timing.phases, restore_ms: outcome.restoreMs },
    } as ResultRecord['timing'],
    lineage,
  };
}
