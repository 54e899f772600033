/**
 * `corral rescore <terminal-run-dir> [--tasks DIR]`: every trial of a terminal run verified again by its task's
 * tests as they are now (the run's task folders, or --tasks with changed tests), in a container brought to the
 * agent's kept final file system; the agent does not run. A new run directory with the new rewards, the rescore
 * lineage and Harbor's job layout, through the one eval flow. Refused before anything runs (exit 2) when a scored
 * trial has no kept file system (RESCORE_ERR_NO_FILE_SYSTEM, naming each) or a task is missing from the folder.
 */
import { join, resolve } from 'node:path';
import type Docker from 'dockerode';
import { CorralError } from '../../core/errors.js';
import { describeEnvironmentSource } from '../../environment-packages/environment-source.js';
import { type SourceRun, sourceRolloutsPerExample } from '../../runner/replay/source-run.js';
import { openDockerConnection } from '../../sandbox/docker/docker-connection.js';
import { loadBaseImageMap } from '../../terminal/base-image-map.js';
import { loadTaskDataset } from '../../terminal/dataset-loader.js';
import { writeHarborJobLayout } from '../../terminal/harbor-job-layout.js';
import { buildTaskImages } from '../../terminal/task-image-builder.js';
import type { TerminalTask } from '../../terminal/terminal-task.js';
import { reverifyExecutor, reverifyPlan } from '../../terminal/trial/reverify-executor.js';
import { runEvalFlow } from '../eval/eval-flow.js';
import { runStamp } from '../eval/run-metadata.js';
import { requireDockerDaemon } from '../eval/require-docker-daemon.js';
import type { TerminalSettings } from '../eval/terminal-run.js';
import { newRunDirectory, sourceExamples } from './source-run-environment.js';

export interface TerminalRescoreFlags {
  tasks?: string;
  env?: string;
  envArgs?: string;
  out?: string;
  progress: boolean;
}

/** Re-verifies a terminal run; returns the exit status (0 clean, 1 with errored records). */
export async function rescoreTerminalRun(
  source: SourceRun,
  flags: TerminalRescoreFlags,
  run: { repeats: number; concurrency: number; log: (line: string) => void },
): Promise<number> {
  const { log } = run;
  if (flags.env !== undefined || flags.envArgs !== undefined)
    throw new CorralError(
      'CFG_ERR_INVALID',
      `${source.directory} is a terminal run: its verifier is each task's tests/, not an environment's rubric; drop --env/--env-args and give changed tests with --tasks <dir>`,
    );
  if (run.repeats !== 1) throw new CorralError('CFG_ERR_INVALID', `--repeats applies to rubrics; a terminal run's verifier runs once per trial`);
  const settings = (source.metadata['terminal'] ?? {}) as Partial<TerminalSettings>;
  const tasksFolder = flags.tasks ?? settings.tasks;
  if (!tasksFolder) throw new CorralError('CFG_ERR_INVALID', `${source.directory}: metadata.json names no task folder; pass --tasks <dir>`);
  const tasksDirectory = resolve(tasksFolder);

  const plans = source.records.map((record) => ({ record, plan: reverifyPlan(record, source.directory) }));
  const withoutFileSystem = plans.flatMap(({ record, plan }) =>
    plan.kind === 'no-file-system'
      ? [{ trial: String(record.info['trial_name'] ?? '?'), record: `${record.example_id}#${record.rollout_index}`, reason: plan.reason }]
      : [],
  );
  if (withoutFileSystem.length > 0)
    throw new CorralError(
      'RESCORE_ERR_NO_FILE_SYSTEM',
      `${withoutFileSystem.length} trial(s) of ${source.directory} kept no final file system, so their verifier cannot run again: ${withoutFileSystem
        .map((each) => `${each.trial} (${each.record}): ${each.reason}`)
        .join('; ')}`,
      { details: { trials: withoutFileSystem } },
    );

  const needed = [...new Set(plans.filter(({ plan }) => plan.kind === 'verify').map(({ record }) => record.example_id))];
  const byName = new Map<string, TerminalTask>();
  if (needed.length > 0) {
    const dataset = await loadTaskDataset(tasksDirectory);
    for (const failure of dataset.failures) log(`error: ${failure.directory}: ${failure.code}: ${failure.message}`);
    for (const task of dataset.tasks) byName.set(task.name, task);
  }
  const absent = needed.filter((name) => !byName.has(name));
  if (absent.length > 0)
    throw new CorralError('TASK_ERR_NOT_FOUND', `${tasksDirectory} holds no task named ${absent.join(', ')} (trials of ${source.directory} to re-verify)`, {
      details: { path: tasksDirectory, tasks: absent },
    });
  if (needed.length > 0) await requireDockerDaemon('corral rescore verifies terminal trials again');
  const directory = newRunDirectory(source, flags.out, 'rescore');
  const { docker, close: closeDocker } = openDockerConnection();
  const pending = new Set<Promise<unknown>>();
  const retire = (work: () => Promise<unknown>) => {
    const done: Promise<unknown> = work()
      .catch(() => undefined)
      .finally(() => pending.delete(done));
    pending.add(done);
  };
  const startedAt = Date.now();
  const job = (finishedAt: Date | null) => ({
    startedAt: new Date(startedAt),
    finishedAt,
    nTotalTrials: source.records.length,
    config: {
      timeoutMultiplier: settings.timeout_multiplier ?? 1,
      nConcurrentTrials: run.concurrency,
      agents: [{ name: agentName(source), modelName: modelName(source) }],
    },
  });
  try {
    const tasks =
      needed.length > 0
        ? await taskImages(
            needed.map((name) => byName.get(name)!),
            { docker, directory, baseImageMap: settings.base_image_map ?? undefined, log },
          )
        : new Map<string, { task: TerminalTask; image: string | undefined }>();
    const warned = new Set<string>();
    for (const { record, plan } of plans) {
      const built = tasks.get(record.example_id)?.image;
      if (plan.kind !== 'verify' || !built || !plan.fileSystem.image || plan.fileSystem.image === built || warned.has(record.example_id)) continue;
      warned.add(record.example_id);
      log(`warning: ${record.example_id}: its image is now ${built}, the run's was ${plan.fileSystem.image}; the agent's changes are applied to the new one`);
    }
    const envSource = describeEnvironmentSource({ kind: 'task-folder', path: tasksDirectory });
    const metadata: Record<string, unknown> = {
      env_id: 'terminal',
      env: 'terminal',
      env_source: envSource,
      model: source.metadata['model'] ?? null,
      agent: source.metadata['agent'] ?? null,
      backend: 'docker',
      num_examples: sourceExamples(source).length,
      rollouts_per_example: sourceRolloutsPerExample(source),
      terminal: { ...settings, tasks: tasksDirectory },
      lineage: {
        kind: 'rescore',
        source_run: source.directory,
        source_env: source.metadata['env'] ?? null,
        source_env_source: source.metadata['env_source'] ?? null,
        env: 'terminal',
        env_source: envSource,
        repeats: 1,
      },
      ...runStamp(startedAt),
    };
    await writeHarborJobLayout(directory, job(null));
    const policy = { forbidEgress: settings.forbid_egress ?? false };
    return await runEvalFlow({
      executor: reverifyExecutor({
        docker,
        source,
        tasks: new Map([...tasks].map(([name, entry]) => [name, { task: entry.task, image: entry.image! }])),
        directory,
        policy,
        timeoutMultiplier: settings.timeout_multiplier ?? 1,
        retire,
        agentName: agentName(source),
        modelName: modelName(source),
      }),
      metadata,
      describe: `rescore ${source.directory}: ${needed.length} task(s) verified again from ${tasksDirectory}, without the agent`,
      cancelling: 'finishing the verifications in flight and removing their containers',
      close: async () => {
        await Promise.all([...pending]);
        await writeHarborJobLayout(directory, job(new Date())).catch(() => undefined);
      },
      directory,
      task: 'terminal',
      examples: sourceExamples(source),
      rolloutsPerExample: sourceRolloutsPerExample(source),
      plannedRollouts: source.records.length,
      options: { concurrency: run.concurrency, maxConcurrency: run.concurrency, progress: flags.progress, progressInterval: 5, samples: false },
      atif: false,
      startedAt,
      log,
    });
  } finally {
    await Promise.all([...pending]);
    closeDocker();
  }
}

/** The task images the trials' changes apply to (built from the task folders, cached by content); a build failure refuses the run. */
async function taskImages(
  tasks: readonly TerminalTask[],
  options: { docker: Docker; directory: string; baseImageMap: string | undefined; log: (line: string) => void },
): Promise<Map<string, { task: TerminalTask; image: string | undefined }>> {
  options.log(`terminal: building ${tasks.length} task images (cached when unchanged)`);
  const images = await buildTaskImages(tasks, {
    docker: options.docker,
    map: await loadBaseImageMap(options.baseImageMap),
    logDirectory: join(options.directory, 'build-logs'),
    log: options.log,
  });
  const failed = images.filter((image) => !image.image);
  if (failed.length > 0)
    throw new CorralError(
      'TASK_ERR_IMAGE_BUILD_FAILED',
      `the image of ${failed.map((image) => `${image.task} (${image.error?.message ?? 'no image'})`).join(', ')} could not be built, so its trials cannot be re-verified`,
      { details: { tasks: failed.map((image) => image.task) } },
    );
  return new Map(tasks.map((task, index) => [task.name, { task, image: images[index]!.image }]));
}

const agentName = (source: SourceRun) => (typeof source.metadata['agent'] === 'string' ? source.metadata['agent'] : 'unknown');
const modelName = (source: SourceRun) => {
  const agent = agentName(source);
  return agent === 'oracle' || agent === 'nop' || typeof source.metadata['model'] !== 'string' ? null : source.metadata['model'];
};
