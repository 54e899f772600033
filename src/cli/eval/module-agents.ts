/**
 * Agents an environment module ships beside its default export: `export const agents = { name: () => agent }`,
 * the same shape as the built-in agents. They let an environment's author give it a model-free reference or
 * floor (like python-code's oracle and empty), run with `corral eval ./my-env.ts --agent <name>`, so the
 * environment can be smoke-tested, and run in CI, without a model endpoint.
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CorralError } from '../../core/errors.js';
import type { Agent } from '../../runner/agents/agent.js';

export type AgentFactories = Readonly<Record<string, () => Agent>>;

/**
 * The module's `agents` export when `nameOrPath` is a module file; empty for built-in names and for modules
 * without one. Call after loadEnvironment: the module is then already loaded, and import() returns the same
 * instance. Throws ENV_ERR_INVALID_MODULE when `agents` is not an object of functions.
 */
export async function loadModuleAgents(nameOrPath: string, builtInEnvironmentNames: readonly string[]): Promise<AgentFactories> {
  if (builtInEnvironmentNames.includes(nameOrPath)) return {};
  const path = resolve(nameOrPath);
  if (!existsSync(path) || !statSync(path).isFile()) return {};
  const module = (await import(pathToFileURL(path).href)) as { agents?: unknown };
  if (module.agents === undefined) return {};
  const agents = module.agents;
  const valid = typeof agents === 'object' && agents !== null && Object.values(agents).every((factory) => typeof factory === 'function');
  if (!valid) {
    throw new CorralError(
      'ENV_ERR_INVALID_MODULE',
      `${path}: the "agents" export must be an object of functions returning agents, e.g. export const agents = { solver: () => new MySolver() }`,
      { details: { path } },
    );
  }
  return Object.freeze({ ...(agents as Record<string, () => Agent>) });
}
