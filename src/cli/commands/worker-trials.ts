/**
 * The trials a `corral worker --env <task folder>` runs (Docker backend): jobs of `corral eval <task folder> --queue`
 * name the folder by its absolute path, which this worker must see at the same path (a shared file system). The
 * folder's tasks, their images and the container pool are prepared once per (folder, terminal settings, agent) with
 * the same openTrialRuntime as a local terminal run; each trial's Harbor folder goes under this worker's cache,
 * `<cache>/worker-trials/<run id>/`, and its record back to the producer.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { CorralError } from '../../core/errors.js';
import { stableStringify } from '../../core/stable-hash.js';
import type { JobRunner } from '../../queue/rollout-worker.js';
import type { RolloutJob } from '../../queue/rollout-job.js';
import type { ResultRecord } from '../../runner/trajectory/result-record.js';
import { openDockerConnection } from '../../sandbox/docker/docker-connection.js';
import { loadTaskDataset } from '../../terminal/dataset-loader.js';
import { taskFolderEnvironmentName } from '../eval/terminal-queue.js';
import { type TrialRuntime, openTrialRuntime, trialAgentFor } from '../eval/terminal-run.js';

export interface WorkerTrials extends JobRunner {
  /** The queue names of the task folders this worker serves. */
  names(): string[];
  close(): Promise<void>;
}

/** A queued trial's env args (terminal-queue.ts terminalJobArgs), checked before they shape a container. */
const trialArgsSchema = z.object({ timeout_multiplier: z.number().positive(), forbid_egress: z.boolean(), base_image_map: z.string().nullable() }).strict();

export function createWorkerTrials(options: { folders: readonly string[]; cacheDirectory: string; log: (line: string) => void }): WorkerTrials {
  const folderByName = new Map(options.folders.map((folder) => [taskFolderEnvironmentName(folder), folder]));
  const { docker, close: closeDocker } = openDockerConnection();
  const runtimes = new Map<string, Promise<{ runtime: TrialRuntime; close: () => Promise<void> }>>();

  const runtimeFor = (job: RolloutJob, folder: string) => {
    const key = stableStringify([folder, job.environment.args, job.agent, job.environment.max_turns]);
    let entry = runtimes.get(key);
    if (!entry) {
      entry = (async () => {
        const parsed = trialArgsSchema.safeParse(job.environment.args);
        if (!parsed.success) throw new CorralError('QUEUE_ERR_INVALID_JOB', `invalid terminal settings in a trial job: ${parsed.error.message}`);
        const settings = { tasks: folder, ...parsed.data };
        const dataset = await loadTaskDataset(folder);
        const apiKey = process.env['OPENAI_API_KEY'];
        const { agent, proxy } = await trialAgentFor(
          { ...job.agent, agent: job.agent.name, max_turns: job.environment.max_turns },
          { ...(apiKey ? { apiKey } : {}), modelTimeout: job.agent.model_timeout_s, modelRetries: job.agent.model_retries },
          options.log,
        );
        const buildLogDirectory = join(options.cacheDirectory, 'worker-trials', 'build-logs');
        const runtime = await openTrialRuntime({ docker, tasks: dataset.tasks, settings, agent, buildLogDirectory, log: options.log });
        return { runtime, close: async () => (await runtime.close(), await proxy?.close()) };
      })();
      runtimes.set(key, entry);
      entry.catch(() => runtimes.delete(key));
    }
    return entry;
  };

  return {
    names: () => [...folderByName.keys()],
    async run(job, context): Promise<ResultRecord> {
      const folder = folderByName.get(job.environment.name);
      if (folder !== job.environment.source)
        throw new CorralError(
          'QUEUE_ERR_NO_ENVIRONMENT',
          `this worker serves no task folder at ${job.environment.source} (it serves ${options.folders.join(', ')}); workers must see the producer's task folder at the same path`,
        );
      const { runtime } = await runtimeFor(job, folder);
      const record = await runtime
        .executorFor(join(options.cacheDirectory, 'worker-trials', job.run_id))
        .run({ example: job.example, rolloutIndex: job.rollout_index, attempt: context.attempt, abortSignal: context.abortSignal });
      // The trial executor answers undefined only for a cancelled trial: this worker is stopping.
      if (!record) throw new CorralError('RUNNER_ERR_CANCELLED', `trial ${job.example.id}#${job.rollout_index} cancelled: this worker is stopping`);
      return record;
    },
    async close() {
      for (const entry of runtimes.values()) await (await entry.catch(() => undefined))?.close().catch(() => undefined);
      closeDocker();
    },
  };
}
