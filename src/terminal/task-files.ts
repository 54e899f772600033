import { lstat, readFile, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { CorralError } from '../core/errors.js';

/** True when path exists and is a regular file (a folder of that name does not count). */
export async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFile() ?? false;
}

export async function isDirectory(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}

/** Reads a file the task must have; a missing one is TASK_ERR_INVALID naming it. */
export async function readRequiredFile(directory: string, relativePath: string): Promise<string> {
  const path = join(directory, relativePath);
  if (!(await isFile(path))) throw new CorralError('TASK_ERR_INVALID', `${path}: missing (a task folder needs ${relativePath})`, { details: { path } });
  return readFile(path, 'utf8');
}

/** The first of the names that exists in directory, or undefined. */
export async function firstExisting(directory: string, names: readonly string[]): Promise<string | undefined> {
  for (const name of names) if (await isFile(join(directory, name))) return name;
  return undefined;
}

export const COMPOSE_FILE_NAMES = ['docker-compose.yaml', 'docker-compose.yml', 'compose.yaml', 'compose.yml'] as const;

/**
 * Refuses a task whose folders copied into containers or the build (environment/, tests/, solution/) are links:
 * tar and the staged build context would follow a linked folder out of the task folder, copying host files into
 * the task's containers. Task folders are untrusted input; links inside those folders are copied as links.
 */
export async function assertNoLinkedFolders(root: string, paths: readonly string[]): Promise<void> {
  for (const path of paths) {
    const info = await lstat(path).catch(() => undefined);
    if (info?.isSymbolicLink())
      throw new CorralError('TASK_ERR_INVALID', `${path}: is a link; a task's ${relative(root, path) || '.'} folder must be a folder inside the task`, {
        details: { path },
      });
  }
}
