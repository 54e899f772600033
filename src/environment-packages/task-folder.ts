/**
 * A Harbor / Terminal-Bench task folder as what `corral eval <env>` names: a folder holding task.toml (Harbor) or
 * task.yaml (Terminal-Bench v1), or a folder of such folders. Its examples are the tasks and its rollouts are trials
 * in Docker (the trial executor, src/terminal/trial/); resolution only recognises the folder and reads no task, so a
 * malformed task is reported by the task loader with its own TASK_ERR_* code.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const TASK_FILES = ['task.toml', 'task.yaml'] as const;

const isDirectory = (path: string) => existsSync(path) && statSync(path).isDirectory();
const holdsTask = (directory: string) => TASK_FILES.some((file) => existsSync(join(directory, file)) && statSync(join(directory, file)).isFile());

/** True for a task folder, or a folder with at least one task folder directly inside (hidden folders skipped). */
export function isTaskFolder(path: string): boolean {
  if (!isDirectory(path)) return false;
  if (holdsTask(path)) return true;
  return readdirSync(path, { withFileTypes: true }).some((entry) => entry.isDirectory() && !entry.name.startsWith('.') && holdsTask(join(path, entry.name)));
}

/**
 * The absolute task folder `nameOrPath` names, or undefined: a built-in environment's name is never a path, so
 * `corral eval python-code` stays the built-in even beside a folder of that name.
 */
export function taskFolderAt(nameOrPath: string, builtInNames: readonly string[]): string | undefined {
  if (builtInNames.includes(nameOrPath)) return undefined;
  const path = resolve(nameOrPath);
  return isTaskFolder(path) ? path : undefined;
}
