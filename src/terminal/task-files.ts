import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
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
