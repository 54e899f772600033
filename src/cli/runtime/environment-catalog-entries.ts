/**
 * /mcp/<env> and /ws/<env> for the environments `corral serve` serves: each becomes a tool catalog entry with its
 * toolsets' tools and its own tools, one ToolDefinition list. Outside an episode there is no example and
 * no setup hook: a set of sandboxes (an MCP session, a handle, a connection) gets one state of its own, made by the
 * environment's state() for an empty example, which every server built over that set shares. An episode's
 * endpoint (episode-service.ts) is bound to its example instead.
 */
import type { LazySandboxes } from '../../mcp/lazy-sandboxes.js';
import type { ToolCatalog, ToolCatalogEntry } from '../../mcp/tool-catalog.js';
import { toolsForToolsets } from '../../mcp/toolsets.js';
import type { Environment, Example } from '../../runner/contract/environment.js';
import { initialRolloutState } from '../../runner/scheduler/environment-rollout.js';
import type { ToolDefinition } from '../../tools/tool-definition.js';
import { type ToolScope, absentExample } from '../../tools/tool-scope.js';
import type { WikiLookup } from '../../tools/wiki/wiki-lookup.js';
import type { ServedEnvironments } from './served-environments.js';

/**
 * The catalog plus one entry per served environment that can be served without arguments. Skipped, with a log
 * line: an environment whose name a catalog entry has, one whose argsSchema needs arguments, one that needs the
 * wiki tools when no corpus was loaded. Those stay available to episodes and rollouts.
 */
export async function withServedEnvironments(
  catalog: ToolCatalog,
  served: ServedEnvironments,
  options: { wiki: WikiLookup | undefined; log: (line: string) => void },
): Promise<ToolCatalog> {
  const entries = new Map<string, ToolCatalogEntry>();
  for (const name of served.names()) {
    if (catalog.get(name)) {
      options.log(`environment ${name}: /mcp/${name} stays the catalog's entry of that name; its tools are served through episodes and rollouts`);
      continue;
    }
    let environment: Environment;
    try {
      environment = await served.bind(name, undefined);
    } catch (error) {
      options.log(`environment ${name}: not served at /mcp/${name} (${(error as Error).message})`);
      continue;
    }
    if (environment.toolsets.includes('wiki') && !options.wiki) {
      options.log(`environment ${name}: not served at /mcp/${name} (it needs the wiki tools and no corpus is loaded)`);
      continue;
    }
    entries.set(name, environmentCatalogEntry(environment, toolsForToolsets(environment.toolsets, { wiki: options.wiki })));
  }
  return {
    get: (name) => catalog.get(name) ?? entries.get(name),
    names: () => [...catalog.names(), ...entries.keys()],
  };
}

/** The environment's tools at /mcp/<env>: each set of sandboxes gets a state of its own, for an absent example. */
export function environmentCatalogEntry(environment: Environment, toolsetTools: readonly ToolDefinition[]): ToolCatalogEntry {
  const scopes = new WeakMap<LazySandboxes, ToolScope<unknown, unknown>>();
  const scopeFor = (sandboxes: LazySandboxes) => {
    let scope = scopes.get(sandboxes);
    if (!scope) {
      const absent = absentExample();
      let state: unknown;
      try {
        state = initialRolloutState(environment, absent.example as Example);
      } catch (error) {
        // state() read the example: say that, not the setup failure it was wrapped in.
        throw absent.refusal() ?? error;
      }
      scope = { example: absent.example, state, envArgs: environment.envArgs };
      scopes.set(sandboxes, scope);
    }
    return scope;
  };
  return Object.freeze({
    name: environment.name,
    tools: [...toolsetTools, ...environment.tools],
    scopeFor,
    instructions: environment.description || `The tools of the ${environment.name} environment.`,
  });
}
