import { createHash } from 'node:crypto';
import { readFile, readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';

/** Bump when the task image builder changes what it puts into an image, so old tags stop matching. */
export const TASK_IMAGE_BUILDER_VERSION = 1;

/**
 * Content hash of a task image's inputs: every file of the build context (path, executable bit, bytes),
 * the rewritten Dockerfile and the image ids of its bases (so a rebuilt base rebuilds the task). Equal
 * hash means the tagged image can be reused as is.
 */
export async function taskImageHash(contextDirectory: string, rewrittenDockerfile: string, baseImageIds: readonly string[]): Promise<string> {
  const hash = createHash('sha256');
  hash.update(`task-image-builder:${TASK_IMAGE_BUILDER_VERSION}\n`);
  const entries = await readdir(contextDirectory, { recursive: true, withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
  for (const file of files.map((path) => relative(contextDirectory, path)).sort()) {
    const mode = (await stat(join(contextDirectory, file))).mode;
    hash.update(`file:${file}:${mode & 0o111 ? 'x' : '-'}:`);
    hash.update(await readFile(join(contextDirectory, file)));
    hash.update('\n');
  }
  hash.update(`dockerfile:${rewrittenDockerfile}\n`);
  for (const id of baseImageIds) hash.update(`base:${id}\n`);
  return hash.digest('hex').slice(0, 16);
}

/** corral-task/<name>: Docker repositories allow [a-z0-9] separated by . _ - and /. */
export function taskImageRepository(taskName: string): string {
  const safe = taskName
    .toLowerCase()
    .replace(/[^a-z0-9/._-]+/g, '-')
    .replace(/\/+/g, '-')
    .replace(/^[-._]+|[-._]+$/g, '');
  return `corral-task/${safe || 'task'}`;
}
