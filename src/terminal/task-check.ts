import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { CorralError } from '../core/errors.js';
import type { BaseImageMap } from './base-image-map.js';
import { rewriteDockerfileBases } from './dockerfile-from-rewrite.js';
import { assertNoRemoteSources } from './dockerfile-remote-sources.js';
import type { TaskDataset, TerminalTask } from './terminal-task.js';

/** Where a task's image comes from, in words: a local image, or its Dockerfile with each FROM as mapped. */
export async function describeImageSource(task: TerminalTask, map: BaseImageMap): Promise<string> {
  const environment = task.environment;
  if (environment.dockerImage) return `image ${environment.dockerImage} (must be local)`;
  const dockerfilePath = join(environment.contextDirectory!, environment.dockerfile!);
  const { bases } = rewriteDockerfileBases(await readFile(dockerfilePath, 'utf8'), map);
  const froms = bases.map((base) => (base.mappedTo ? `${base.image} → ${base.mappedTo}` : `${base.image} (unmapped: must be local)`));
  return `build ${relative(task.directory, dockerfilePath)} FROM ${froms.join(', ') || '(none)'}`;
}

/** One line per task: name, image source, timeouts, network, limits. */
export async function describeTask(task: TerminalTask, map: BaseImageMap): Promise<string> {
  const environment = task.environment;
  const limits = [`cpus ${environment.cpus}`, `memory ${environment.memoryMb} MB`, environment.storageMb ? `storage ${environment.storageMb} MB` : undefined];
  const parts = [
    `${task.name} [${task.format}]`,
    await describeImageSource(task, map),
    `agent ${task.agent.timeoutSec} s`,
    `verifier ${task.verifier.timeoutSec} s`,
    `build ${environment.buildTimeoutSec} s`,
    `network ${environment.networkMode}`,
    limits.filter(Boolean).join(', '),
    `workdir ${environment.workdir}`,
    task.solutionScript ? 'oracle yes' : 'oracle no',
  ];
  return parts.join(' | ');
}

export interface CheckReport {
  lines: string[];
  errorLines: string[];
  ok: boolean;
}

/** What `corral tasks check` prints: a line per loadable task, then one per failure with its code. */
export async function checkDataset(dataset: TaskDataset, map: BaseImageMap): Promise<CheckReport> {
  const lines: string[] = [];
  const errorLines: string[] = [];
  for (const task of dataset.tasks) {
    lines.push(await describeTask(task, map));
    const refusal = await remoteSourceRefusal(task);
    if (refusal) errorLines.push(`${relative(dataset.root, task.directory) || task.directory}: ${refusal.code}: ${refusal.message}`);
  }
  for (const failure of dataset.failures)
    errorLines.push(`${relative(dataset.root, failure.directory) || failure.directory}: ${failure.code}: ${failure.message}`);
  return { lines, errorLines, ok: errorLines.length === 0 };
}

/** The build's refusal of a Dockerfile that fetches from outside its context, reported before any build. */
async function remoteSourceRefusal(task: TerminalTask): Promise<CorralError | undefined> {
  const environment = task.environment;
  if (environment.dockerImage) return undefined;
  try {
    assertNoRemoteSources(task.name, await readFile(join(environment.contextDirectory!, environment.dockerfile!), 'utf8'));
    return undefined;
  } catch (error) {
    if (CorralError.hasCode(error, 'TASK_ERR_REMOTE_SOURCE')) return error;
    throw error;
  }
}
