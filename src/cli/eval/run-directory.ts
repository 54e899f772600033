/** Where a run writes: runs/<env>--<model>/<run-id>/ by default (the vf-eval layout), or --out / --resume DIR. */
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';

export function defaultRunDirectory(environmentName: string, model: string): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '');
  return resolve('runs', `${environmentName}--${model.replaceAll('/', '--')}`, `${stamp}-${randomBytes(3).toString('hex')}`);
}

export const resolveRunDirectory = (path: string) => resolve(path);
export const resultsPath = (directory: string) => join(directory, 'results.jsonl');
