import { spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import PQueue from 'p-queue';
import { CorralError } from '../core/errors.js';
import { dockerStatusCode } from '../sandbox/docker/docker-errors.js';
import { IMAGE_LABEL_BUILDER, IMAGE_LABEL_HASH, IMAGE_LABEL_KIND } from '../sandbox/docker/docker-labels.js';
import type { BaseImageMap } from './base-image-map.js';
import { rewriteDockerfileBases } from './dockerfile-from-rewrite.js';
import { assertNoRemoteSources } from './dockerfile-remote-sources.js';
import { TASK_IMAGE_BUILDER_VERSION, taskImageHash, taskImageRepository } from './environment-hash.js';
import type { TerminalTask } from './terminal-task.js';

/** Two builds at once: apt and layer export are CPU and disk bound, and a build uses more than one core. */
export const DEFAULT_TASK_BUILD_CONCURRENCY = 2;

export interface TaskImageBuildOptions {
  docker: Docker;
  map: BaseImageMap;
  /** Build logs are kept as <logDirectory>/<repository name>.build.log. */
  logDirectory: string;
  concurrency?: number;
  /** Rebuild even when the content-hash tag exists. */
  force?: boolean;
  log?: (line: string) => void;
}

export interface TaskImageResult {
  task: string;
  /** The image a trial starts from; absent when the task failed. */
  image?: string;
  /** built: this call built it; cached: the hash tag existed; prebuilt: a local [environment].docker_image. */
  status: 'built' | 'cached' | 'prebuilt' | 'failed';
  logPath?: string;
  error?: { code: string; message: string };
  durationMs: number;
}

/**
 * Builds every task's image with the Docker engine, at most `concurrency` at a time. Each FROM is rewritten
 * through the base-image map, the image is tagged corral-task/<name>:<content hash> and skipped when that
 * tag exists. A Dockerfile that would fetch from outside its context is refused first (TASK_ERR_REMOTE_SOURCE,
 * dockerfile-remote-sources.ts). A task that cannot be built gets status failed with its TASK_ERR_* code and kept log; the
 * other tasks go on. Throws only for what no task could survive (none today: daemon errors are per task).
 */
export async function buildTaskImages(tasks: readonly TerminalTask[], options: TaskImageBuildOptions): Promise<TaskImageResult[]> {
  await mkdir(options.logDirectory, { recursive: true });
  const queue = new PQueue({ concurrency: options.concurrency ?? DEFAULT_TASK_BUILD_CONCURRENCY });
  return Promise.all(tasks.map((task) => queue.add(() => buildOneTaskImage(task, options), { throwOnTimeout: true })));
}

async function buildOneTaskImage(task: TerminalTask, options: TaskImageBuildOptions): Promise<TaskImageResult> {
  const startedAt = performance.now();
  const elapsed = () => Math.round(performance.now() - startedAt);
  const logPath = join(options.logDirectory, `${taskImageRepository(task.name).replace('/', '_')}.build.log`);
  try {
    const environment = task.environment;
    if (environment.dockerImage) {
      if (!(await imageId(options.docker, environment.dockerImage))) {
        throw new CorralError(
          'TASK_ERR_IMAGE_NOT_FOUND',
          `${task.name}: [environment].docker_image ${environment.dockerImage} is not a local image (corral pulls nothing: docker load or build it first)`,
        );
      }
      return { task: task.name, image: environment.dockerImage, status: 'prebuilt', durationMs: elapsed() };
    }
    const context = environment.contextDirectory!;
    const dockerfile = await readFile(join(context, environment.dockerfile!), 'utf8');
    assertNoRemoteSources(task.name, dockerfile);
    const rewritten = rewriteDockerfileBases(dockerfile, options.map);
    const baseIds: string[] = [];
    for (const base of rewritten.bases) {
      const reference = base.mappedTo ?? base.image;
      const id = await imageId(options.docker, reference);
      if (!id)
        throw new CorralError('TASK_ERR_IMAGE_NOT_FOUND', `${task.name}: ${missingBaseMessage(base.image, base.mappedTo)}`, { details: { image: reference } });
      baseIds.push(id);
    }
    const contentHash = await taskImageHash(context, rewritten.text, baseIds);
    const tag = `${taskImageRepository(task.name)}:${contentHash}`;
    if (!options.force && (await imageId(options.docker, tag))) {
      options.log?.(`${task.name}: ${tag} exists; skipping the build`);
      return { task: task.name, image: tag, status: 'cached', durationMs: elapsed() };
    }
    options.log?.(`${task.name}: building ${tag} (log ${logPath})`);
    await runBuild(task, rewritten.text, tag, contentHash, logPath, options.docker);
    options.log?.(`${task.name}: built ${tag} in ${(elapsed() / 1000).toFixed(1)} s`);
    return { task: task.name, image: tag, status: 'built', logPath, durationMs: elapsed() };
  } catch (error) {
    const failure = CorralError.isInstance(error)
      ? error
      : new CorralError('TASK_ERR_IMAGE_BUILD_FAILED', `${task.name}: ${(error as Error).message}`, { cause: error });
    options.log?.(`${task.name}: ${failure.code}: ${failure.message}`);
    const keptLog = failure.code === 'TASK_ERR_IMAGE_BUILD_FAILED' ? logPath : undefined;
    return { task: task.name, status: 'failed', logPath: keptLog, error: { code: failure.code, message: failure.message }, durationMs: elapsed() };
  }
}

function missingBaseMessage(image: string, mappedTo: string | undefined): string {
  if (mappedTo) return `FROM ${image} maps to ${mappedTo}, which is not built: run \`corral images build --offline --only task-bases\``;
  return `FROM ${image} is neither in the base-image map nor a local image: add it with --base-image-map or docker load it`;
}

/** docker build through the API: the task's context with the rewritten Dockerfile, bridge network, build_timeout_sec. */
async function runBuild(task: TerminalTask, dockerfile: string, tag: string, contentHash: string, logPath: string, docker: Docker): Promise<void> {
  const environment = task.environment;
  const stage = await mkdtemp(join(tmpdir(), 'corral-task-context-'));
  const logLines: string[] = [];
  const timeoutMs = environment.buildTimeoutSec * 1000;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  try {
    await cp(environment.contextDirectory!, stage, { recursive: true });
    await writeFile(join(stage, environment.dockerfile!), dockerfile);
    const tar = spawn('tar', ['-C', stage, '-c', '.'], { stdio: ['ignore', 'pipe', 'ignore'] });
    const labels = {
      [IMAGE_LABEL_KIND]: 'task',
      [IMAGE_LABEL_HASH]: contentHash,
      [IMAGE_LABEL_BUILDER]: `task-${TASK_IMAGE_BUILDER_VERSION}`,
      'corral.task': task.name,
    };
    const progress = await docker.buildImage(tar.stdout, {
      t: tag,
      dockerfile: environment.dockerfile,
      labels,
      networkmode: 'bridge',
      rm: true,
      forcerm: true,
      abortSignal: abort.signal,
    } as Docker.ImageBuildOptions);
    await new Promise<void>((resolve, reject) => {
      docker.modem.followProgress(
        progress,
        (error: Error | null, events: Array<{ error?: string }>) => {
          const failed = abort.signal.aborted
            ? `build_timeout_sec ${environment.buildTimeoutSec} exceeded`
            : (error?.message ?? events.find((event) => event.error)?.error);
          if (failed) reject(new Error(failed));
          else resolve();
        },
        (event: { stream?: string; error?: string }) => {
          const text = event.stream ?? (event.error ? `ERROR: ${event.error}\n` : '');
          if (text) logLines.push(text);
        },
      );
    });
  } catch (error) {
    await writeFile(logPath, logLines.join(''));
    const tail = logLines.join('').trimEnd().split('\n').slice(-15).join('\n');
    throw new CorralError('TASK_ERR_IMAGE_BUILD_FAILED', `${task.name}: docker build failed: ${(error as Error).message} (log ${logPath})\n${tail}`, {
      cause: error,
      details: { logPath },
    });
  } finally {
    clearTimeout(timer);
    await rm(stage, { recursive: true, force: true });
  }
  await writeFile(logPath, logLines.join(''));
}

async function imageId(docker: Docker, reference: string): Promise<string | undefined> {
  try {
    return (await docker.getImage(reference).inspect()).Id;
  } catch (error) {
    if (dockerStatusCode(error) === 404) return undefined;
    throw error;
  }
}
