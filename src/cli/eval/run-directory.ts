/**
 * Where a run writes: runs/<env>--<model>/<run-id>/ by default (the vf-eval layout), or --out / --resume DIR; and the
 * two questions every kind of run asks of it: what a resumed run stored (its metadata.json), and whether --out
 * would overwrite another run.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CorralError } from '../../core/errors.js';

export function defaultRunDirectory(environmentName: string, model: string): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '');
  return resolve('runs', `${environmentName}--${model.replaceAll('/', '--')}`, `${stamp}-${randomBytes(3).toString('hex')}`);
}

export const resolveRunDirectory = (path: string) => resolve(path);
export const resultsPath = (directory: string) => join(directory, 'results.jsonl');

/** metadata.json of a run being resumed; null when the run wrote none yet. */
export function readResumedMetadata(directory: string): Record<string, unknown> | null {
  if (!existsSync(directory)) throw new CorralError('CFG_ERR_INVALID', `--resume ${directory}: no such run directory`);
  const path = join(directory, 'metadata.json');
  if (!existsSync(path)) return null;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new CorralError('CFG_ERR_INVALID', `--resume ${directory}: metadata.json is not JSON (${(error as Error).message})`);
  }
}

/** A new run never writes into a folder that holds another run. */
export function refuseOccupiedRunDirectory(directory: string): void {
  if (existsSync(join(directory, 'metadata.json')) || existsSync(join(directory, 'results.jsonl')))
    throw new CorralError('CFG_ERR_INVALID', `--out ${directory} already holds a run: continue it with --resume ${directory}, or choose another --out`);
}
