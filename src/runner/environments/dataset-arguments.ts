/**
 * Reading the flags an environment's dataset accepts (`--questions`, `--dataset`, `--corpus`) and the data
 * directory they default into. Missing files are caller errors that name the flag or variable to set.
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { CorralError } from '../../core/errors.js';
import type { DatasetLocation } from '../contract/environment.js';

/** The last value given for a flag (a repeated single-valued flag means "the later one wins"). */
export function flagValue(args: DatasetLocation['args'], name: string): string | undefined {
  const value = args[name];
  if (Array.isArray(value)) return value.at(-1);
  return value === undefined || value === '' ? undefined : value;
}

/** Every value given for a multi-valued flag such as `--corpus A B`; empty when absent. */
export function flagValues(args: DatasetLocation['args'], name: string): string[] {
  const value = args[name];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).filter((item) => item !== '');
}

/** The data directory: the one the caller resolved (flag > env > file), else CORRAL_DATA_DIR. */
export function dataDirectory(dataDir: string | undefined): string | undefined {
  const chosen = dataDir ?? process.env.CORRAL_DATA_DIR;
  return chosen === undefined || chosen === '' ? undefined : chosen;
}

/**
 * Resolves a dataset file: the flag's value when given, else `relativeDefault` under the data directory.
 * Throws ENV_ERR_DATASET_NOT_FOUND naming the flag and CORRAL_DATA_DIR when neither leads to a file.
 */
export function datasetFile(options: DatasetLocation, flag: string, relativeDefault: string): string {
  const given = flagValue(options.args, flag);
  const directory = dataDirectory(options.dataDir);
  const path = given !== undefined ? resolve(given) : directory !== undefined ? resolve(directory, relativeDefault) : undefined;
  if (path === undefined) {
    throw new CorralError('ENV_ERR_DATASET_NOT_FOUND', `no dataset: pass --${flag} PATH or set CORRAL_DATA_DIR (default ${relativeDefault} under it)`, {
      details: { flag },
    });
  }
  if (!existsSync(path) || !statSync(path).isFile()) {
    // Name what the user can change: the flag, or the data directory, which comes from --data-dir or CORRAL_DATA_DIR.
    const hint = given !== undefined ? `--${flag}` : `--data-dir or CORRAL_DATA_DIR: ${relativeDefault} is not under ${directory}`;
    throw new CorralError('ENV_ERR_DATASET_NOT_FOUND', `dataset file not found: ${path} (check ${hint})`, { details: { flag, path } });
  }
  return path;
}
