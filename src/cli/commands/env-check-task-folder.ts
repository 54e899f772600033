/**
 * `corral env check <task folder>`: the composition for Harbor / Terminal-Bench task folders. Loads the tasks, builds
 * (or finds cached) their images once, opens one trial container pool, and hands the battery
 * (src/environment-check/task-folder-check.ts) a trial executor per agent over them. Trial folders go to a
 * temporary directory, removed at the end: the report is the output.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { EnvironmentCheckReport } from '../../environment-check/check-report.js';
import { runTaskFolderCheck } from '../../environment-check/task-folder-check.js';
import { CorralError } from '../../core/errors.js';
import { openDockerConnection } from '../../sandbox/docker/docker-connection.js';
import { loadBaseImageMap } from '../../terminal/base-image-map.js';
import { loadTaskDataset } from '../../terminal/dataset-loader.js';
import { buildTaskImages } from '../../terminal/task-image-builder.js';
import { TrialContainerPool } from '../../terminal/trial/trial-container-pool.js';
import { taskExample, trialExecutor } from '../../terminal/trial/trial-executor.js';

export interface TaskFolderCheckFlags {
  numExamples?: number;
  concurrency: number;
  margin: number;
  baseImageMap?: string;
}

export async function checkTaskFolder(folder: string, flags: TaskFolderCheckFlags, log: (line: string) => void): Promise<EnvironmentCheckReport> {
  const dataset = await loadTaskDataset(folder);
  for (const failure of dataset.failures) log(`error: ${failure.directory}: ${failure.code}: ${failure.message}`);
  const tasks = flags.numExamples === undefined ? dataset.tasks : dataset.tasks.slice(0, flags.numExamples);
  const { docker, close: closeDocker } = openDockerConnection();
  const directory = await mkdtemp(join(tmpdir(), 'corral-env-check-trials-'));
  const policy = { forbidEgress: false };
  const longestTrialMs = Math.max(0, ...tasks.map((task) => (task.agent.timeoutSec + task.verifier.timeoutSec) * 1000));
  const pool = new TrialContainerPool({ docker, policy, lifetimeMs: longestTrialMs * 3 + 3_600_000 });
  const abort = new AbortController();
  const stop = () => abort.abort(new CorralError('ERR_ABORTED', 'corral env check was interrupted'));
  process.once('SIGINT', stop);
  try {
    log(`terminal: building ${tasks.length} task images (cached when unchanged)`);
    const images = await buildTaskImages([...tasks], {
      docker,
      map: await loadBaseImageMap(flags.baseImageMap),
      logDirectory: join(directory, 'build-logs'),
      log,
    });
    const trialTasks = new Map(tasks.map((task, index) => [task.name, { task, image: images[index]! }]));
    return await runTaskFolderCheck({
      name: basename(dataset.root),
      tasks,
      failures: dataset.failures,
      executorFor: (agent) =>
        trialExecutor({ docker, pool, agent, tasks: trialTasks, directory, timeoutMultiplier: 1, policy, modelName: null, datasetName: 'env-check' }),
      exampleOf: taskExample,
      concurrency: flags.concurrency,
      margin: flags.margin,
      abortSignal: abort.signal,
      log,
    });
  } finally {
    process.off('SIGINT', stop);
    await pool.close();
    closeDocker();
    await rm(directory, { recursive: true, force: true });
  }
}
