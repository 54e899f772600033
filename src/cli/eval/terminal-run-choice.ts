/**
 * Whether a `corral eval` invocation is a terminal run, decided before anything of terminal runs or queues is loaded:
 * eval.ts imports those (Docker, task images, trials, BullMQ) only for the runs that use them, so a plain local
 * eval starts without them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { taskFolderAt } from '../../environment-packages/task-folder.js';
import { builtInEnvironments } from '../../runner/environments/index.js';
import { TERMINAL_ENVIRONMENT } from '../../terminal/trial/trial-record.js';
import type { EvalOptions } from './eval-options.js';

/** The task folder a `corral eval <path>` argument names (built-in names first), else undefined. */
export const taskFolderArgument = (argument: string) => taskFolderAt(argument, Object.keys(builtInEnvironments));

/**
 * True when this invocation is a terminal run: `corral eval terminal --tasks DIR`, `corral eval DIR` where DIR is a
 * Harbor / Terminal-Bench task folder (or a folder of them), or --resume of either.
 */
export function isTerminalRun(environmentArgument: string | undefined, options: EvalOptions): boolean {
  if (environmentArgument === TERMINAL_ENVIRONMENT) return true;
  if (environmentArgument !== undefined) return taskFolderArgument(environmentArgument) !== undefined;
  if (!options.resume) return false;
  const path = join(resolve(options.resume), 'metadata.json');
  if (!existsSync(path)) return false;
  try {
    return (JSON.parse(readFileSync(path, 'utf8')) as { command?: { env?: unknown } }).command?.env === TERMINAL_ENVIRONMENT;
  } catch {
    return false;
  }
}
