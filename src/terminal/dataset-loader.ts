import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { CorralError } from '../core/errors.js';
import { isHarborTaskDirectory, loadHarborTask } from './harbor-task-loader.js';
import { isDirectory } from './task-files.js';
import { isTerminalBenchV1Directory, loadTerminalBenchV1Task } from './terminal-bench-v1-loader.js';
import type { TaskDataset, TaskLoadFailure, TerminalTask } from './terminal-task.js';

/** Loads one task folder of either format; throws TASK_ERR_* when it is not a task or does not load. */
export async function loadTask(directory: string): Promise<TerminalTask> {
  if (await isHarborTaskDirectory(directory)) return loadHarborTask(directory);
  if (await isTerminalBenchV1Directory(directory)) return loadTerminalBenchV1Task(directory);
  throw new CorralError('TASK_ERR_NOT_FOUND', `${directory}: not a task folder (no task.toml or task.yaml)`, { details: { path: directory } });
}

/**
 * A dataset is a single task folder or a folder of task folders (sorted by name; folders that are neither
 * format are skipped). A task that fails to load becomes a failure entry, and the others still load.
 * Throws TASK_ERR_NOT_FOUND when the path is missing or holds no task at all.
 */
export async function loadTaskDataset(path: string): Promise<TaskDataset> {
  const root = resolve(path);
  if (!(await isDirectory(root))) throw new CorralError('TASK_ERR_NOT_FOUND', `${root}: no such folder`, { details: { path: root } });
  const single = (await isHarborTaskDirectory(root)) || (await isTerminalBenchV1Directory(root));
  const candidates = single ? [root] : await taskFolders(root);
  const tasks: TerminalTask[] = [];
  const failures: TaskLoadFailure[] = [];
  for (const directory of candidates) {
    try {
      tasks.push(await loadTask(directory));
    } catch (error) {
      if (!CorralError.isInstance(error)) throw error;
      failures.push({ directory, code: error.code, message: error.message });
    }
  }
  if (tasks.length === 0 && failures.length === 0) {
    throw new CorralError('TASK_ERR_NOT_FOUND', `${root}: holds no task folder (instruction.md + task.toml, or a TB v1 task.yaml)`, {
      details: { path: root },
    });
  }
  // Results and image tags are keyed by name, so a second task of the same name is a failure, not a clash.
  const seen = new Map<string, string>();
  const unique = tasks.filter((task) => {
    const earlier = seen.get(task.name);
    if (earlier)
      failures.push({
        directory: task.directory,
        code: 'TASK_ERR_INVALID',
        message: `${task.directory}: task name ${task.name} is already used by ${earlier}`,
      });
    else seen.set(task.name, task.directory);
    return !earlier;
  });
  return { root, tasks: unique, failures };
}

async function taskFolders(root: string): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true });
  const folders = entries.filter((entry) => entry.isDirectory() && !entry.name.startsWith('.')).map((entry) => join(root, entry.name));
  const found: string[] = [];
  for (const folder of folders.sort()) {
    if ((await isHarborTaskDirectory(folder)) || (await isTerminalBenchV1Directory(folder))) found.push(folder);
  }
  return found;
}
