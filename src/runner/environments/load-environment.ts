/**
 * Finds an environment by built-in name, or loads a user's module (TypeScript under tsx, or JavaScript) whose
 * default export was made with defineEnvironment. The export is re-validated here, because a module can
 * export anything and the runner should fail at load time with a message, not halfway through a run.
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CorralError } from '../../core/errors.js';
import { defineEnvironment, type Environment, type EnvironmentInput } from '../contract/environment.js';
import { type EnvironmentDefinition, bindEnvironmentArgs, isEnvironmentFactory } from '../contract/environment-args.js';
import { importWithTimeout } from './import-with-timeout.js';

export async function loadEnvironmentFrom(nameOrPath: string, builtIns: Readonly<Record<string, () => Environment>>): Promise<Environment> {
  const builtIn = Object.hasOwn(builtIns, nameOrPath) ? builtIns[nameOrPath] : undefined;
  if (builtIn !== undefined) return builtIn();
  const path = resolve(nameOrPath);
  if (!existsSync(path) || !statSync(path).isFile()) {
    throw new CorralError(
      'ENV_ERR_NOT_FOUND',
      `no environment "${nameOrPath}": not a built-in (${Object.keys(builtIns).join(', ')}) and no module file at ${path}`,
      { details: { nameOrPath, path } },
    );
  }
  const definition = await loadEnvironmentModule(path);
  // A factory is built for its default arguments here; resolveEnvironment's callers bind --env-args themselves.
  return isEnvironmentFactory(definition) ? bindEnvironmentArgs(definition, {}) : definition;
}

/**
 * What a module file default-exports: an Environment (defineEnvironment) or an EnvironmentFactory
 * (defineEnvironmentFactory, built once its arguments are known). Throws ENV_ERR_INVALID_MODULE when the module does
 * not load or exports neither. `reload` (a fresh token per reload of a served module) makes the import read the
 * file again instead of answering from Node's module cache; the modules it imports stay cached. An import that
 * has not settled after `timeoutMs` (default 60 s) is ENV_ERR_LOAD_TIMEOUT.
 */
export async function loadEnvironmentModule(path: string, options: { reload?: string; timeoutMs?: number } = {}): Promise<EnvironmentDefinition> {
  let module: { default?: unknown };
  try {
    const url = pathToFileURL(path);
    if (options.reload !== undefined) url.searchParams.set('corral-reload', options.reload);
    module = await importWithTimeout<{ default?: unknown }>(url.href, path, options.timeoutMs);
  } catch (error) {
    if (CorralError.isInstance(error) && error.code === 'ENV_ERR_LOAD_TIMEOUT') throw error;
    throw new CorralError('ENV_ERR_INVALID_MODULE', `environment module ${path} failed to load: ${(error as Error).message}`, {
      cause: error,
      details: { path },
    });
  }
  const candidate = module.default;
  if (typeof candidate !== 'object' || candidate === null) {
    throw new CorralError(
      'ENV_ERR_INVALID_MODULE',
      `environment module ${path} has no default export object; write \`export default defineEnvironment({...})\``,
      { details: { path } },
    );
  }
  if (isEnvironmentFactory(candidate)) return candidate;
  try {
    return defineEnvironment(candidate as EnvironmentInput);
  } catch (error) {
    throw new CorralError('ENV_ERR_INVALID_MODULE', `the default export of ${path} is not a valid Environment: ${(error as Error).message}`, {
      cause: error,
      details: { path },
    });
  }
}
