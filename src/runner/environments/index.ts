/** The environments corral ships, by name, and the loader the CLI uses for `corral eval <name | path>`. */
import type { Environment } from '../contract/environment.js';
import { loadEnvironmentFrom } from './load-environment.js';
import { createPythonCodeEnvironment } from './python-code/python-code-environment.js';
import { createWikiSearchEnvironment } from './wiki-search/wiki-search-environment.js';

/** Factories, so importing the registry reads no files and each run gets a fresh environment. */
export const builtInEnvironments: Readonly<Record<string, () => Environment>> = Object.freeze({
  'wiki-search': () => createWikiSearchEnvironment(),
  'python-code': () => createPythonCodeEnvironment(),
});

/**
 * A built-in by name, else the module at `nameOrPath` (relative to the working directory). Throws
 * ENV_ERR_NOT_FOUND when neither exists and ENV_ERR_INVALID_MODULE when the module does not load or its default
 * export is not an Environment.
 */
export function loadEnvironment(nameOrPath: string): Promise<Environment> {
  return loadEnvironmentFrom(nameOrPath, builtInEnvironments);
}

export { createPythonCodeEnvironment, createWikiSearchEnvironment };
export type { PythonCodeSettings } from './python-code/python-code-environment.js';
export type { WikiSearchSettings } from './wiki-search/wiki-search-environment.js';
export { resolveCorpusPaths, defaultCorpusPaths } from './wiki-search/corpus-paths.js';
