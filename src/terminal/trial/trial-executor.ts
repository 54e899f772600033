/**
 * The trial executor: a Harbor / Terminal-Bench trial as one rollout of the run driver (src/runner/run/). An example
 * is a task (id = the task's name, prompt = its instruction); plan() starts warming the task's containers; run() is
 * one trial (a fresh container, the agent phase, the verifier in a fresh container from the committed file system),
 * written as a Harbor trial folder under the run directory and returned as a record.
 *
 * A cancelled trial returns undefined after removing its half-written folder, so --resume redoes it in a new one.
 * A Docker daemon hiccup while creating the container is a transient errored record, which the driver retries; a
 * retry first removes the failed attempt's folder, so the run keeps exactly one folder per recorded trial.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { CorralError } from '../../core/errors.js';
import type { Example } from '../../runner/contract/environment.js';
import type { RolloutExecutor } from '../../runner/run/rollout-executor.js';
import { type ResultRecord, resultKey } from '../../runner/trajectory/result-record.js';
import { harborTrialName, writeHarborTrial } from '../harbor-job-layout.js';
import type { TaskImageResult } from '../task-image-builder.js';
import type { TerminalTask } from '../terminal-task.js';
import { harborTrialInput } from './harbor-trial-input.js';
import { runTrial } from './run-trial.js';
import type { TrialAgent } from './trial-agent.js';
import type { TrialNetworkPolicy } from './trial-container-options.js';
import type { TrialContainerPool } from './trial-container-pool.js';
import { trialRecord } from './trial-record.js';
import type { TrialResult } from './trial-result.js';

/** A task of the run with the image its trials start from (or why it has none). */
export interface TrialTask {
  task: TerminalTask;
  image: Pick<TaskImageResult, 'image' | 'error' | 'logPath' | 'durationMs'>;
}

export interface TrialExecutorOptions {
  docker: Docker;
  pool: TrialContainerPool;
  agent: TrialAgent;
  /** The run's tasks by example id (the task's name). */
  tasks: ReadonlyMap<string, TrialTask>;
  /** The run directory: every trial's folder goes under it (Harbor's job layout). */
  directory: string;
  timeoutMultiplier: number;
  policy: TrialNetworkPolicy;
  /** The agent's model for Harbor's result.json; null for model-free agents. */
  modelName: string | null;
  /** Harbor's dataset name in each trial's result.json (default "terminal"). */
  datasetName?: string;
  /**
   * Keep each trial's final file system in its folder (info.final_file_system), so `corral rescore` can verify it
   * again; a local `corral eval terminal` run does, the environment check and the rollout API do not (default false).
   */
  keepFinalFileSystem?: boolean;
  /** Once a trial's folder and record exist: what the caller adds to the folder (a CLI agent's ATIF trajectory). */
  afterTrial?: (record: ResultRecord, trial: TrialResult, trialDirectory: string) => Promise<void>;
}

/** A task as an example of the run: records and --resume key on its name. */
export function taskExample(task: TerminalTask): Example {
  return { id: task.name, prompt: task.instruction, info: { task_directory: task.directory, format: task.format } };
}

export function trialExecutor(options: TrialExecutorOptions): RolloutExecutor {
  // The folder of each rollout's latest attempt: a retry replaces it.
  const folderOfRollout = new Map<string, string>();
  const taskOf = (example: Example): TrialTask => {
    const entry = options.tasks.get(example.id);
    if (!entry) throw new CorralError('TASK_ERR_NOT_FOUND', `no task named ${example.id} in this run`);
    return entry;
  };
  return {
    plan: (example, rollouts) => {
      const { task, image } = taskOf(example);
      if (image.image) options.pool.plan(task, image.image, rollouts);
    },
    run: async ({ example, rolloutIndex, abortSignal }) => {
      const { task, image } = taskOf(example);
      const key = resultKey(task.name, rolloutIndex);
      const earlier = folderOfRollout.get(key);
      if (earlier) await rm(join(options.directory, earlier), { recursive: true, force: true });
      const trialName = harborTrialName(task.name);
      const trialDirectory = join(options.directory, trialName);
      folderOfRollout.set(key, trialName);
      let trial: TrialResult;
      try {
        trial = await runTrial({
          docker: options.docker,
          pool: options.pool,
          task,
          image: image.image,
          ...(image.error ? { imageError: { ...image.error, ...(image.logPath ? { logPath: image.logPath } : {}) } } : {}),
          imageMs: image.durationMs,
          agent: options.agent,
          trialDirectory,
          timeoutMultiplier: options.timeoutMultiplier,
          policy: options.policy,
          rolloutIndex,
          abortSignal,
          keepFinalFileSystem: options.keepFinalFileSystem === true,
        });
      } catch (error) {
        // Cancelled (not recorded: --resume redoes it) or lost: a folder without result.json stands for no trial.
        await rm(trialDirectory, { recursive: true, force: true });
        folderOfRollout.delete(key);
        if (CorralError.hasCode(error, 'ERR_ABORTED')) return undefined;
        throw error;
      }
      await writeHarborTrial(
        options.directory,
        harborTrialInput(task, trial, {
          trialName,
          rolloutIndex,
          modelName: options.modelName,
          datasetName: options.datasetName ?? 'terminal',
          timeoutMultiplier: options.timeoutMultiplier,
        }),
      );
      const record = trialRecord(task, rolloutIndex, trial, { image: image.image ?? null, trialName });
      await options.afterTrial?.(record, trial, trialDirectory);
      return record;
    },
  };
}
