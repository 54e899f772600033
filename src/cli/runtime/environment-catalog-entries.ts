/**
 * /mcp/<env> and /ws/<env> for the environments `corral serve` serves: each becomes a tool catalog entry with its
 * toolsets' tools and its own tools (environment-tool-definitions.ts). Outside an episode there is no example and
 * no setup hook: a set of sandboxes (an MCP session, a handle, a connection) gets one state of its own, made by the
 * environment's state() for an empty example, which every server built over that set shares. An episode's
 * endpoint (episode-service.ts) is bound to its example instead.
 */
import { CorralError } from '../../core/errors.js';
import type { LazySandboxes } from '../../mcp/lazy-sandboxes.js';
import type { ToolCatalog, ToolCatalogEntry } from '../../mcp/tool-catalog.js';
import { toolsForToolsets } from '../../mcp/toolsets.js';
import type { Environment, Example } from '../../runner/contract/environment.js';
import { initialRolloutState } from '../../runner/scheduler/environment-rollout.js';
import type { ToolDefinition } from '../../tools/tool-definition.js';
import type { WikiLookup } from '../../tools/wiki/wiki-lookup.js';
import { type ToolContextProvider, environmentToolDefinitions } from './environment-tool-definitions.js';
import { lazyEnvironmentSandbox } from './lazy-environment-sandbox.js';
import type { ServedEnvironments } from './served-environments.js';

/**
 * What a custom tool (and state()) sees as its example at /mcp/<env>, where no task was chosen: reading any field
 * throws ENV_ERR_NO_EXAMPLE, which the caller reads as the tool's error result. An empty example instead made a
 * tool that compares with example.answer answer plausibly wrong ("wrong", against undefined).
 */
function absentExample(): { example: Example; refusal: () => CorralError | undefined } {
  let refusal: CorralError | undefined;
  const example = new Proxy(Object.freeze({}) as Example, {
    get(_target, property) {
      // Symbols (inspection, iteration) and `then` (await of the context) are not reads of the example's content.
      if (typeof property === 'symbol' || property === 'then' || property === 'toJSON') return undefined;
      refusal ??= new CorralError(
        'ENV_ERR_NO_EXAMPLE',
        `this tool reads the example (example.${property}), and a session at /mcp/<env> has no example; call it inside an episode (POST /v1/episodes with an example_id) or a rollout, where the example is known`,
        { details: { field: property } },
      );
      throw refusal;
    },
  });
  return { example, refusal: () => refusal };
}

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

export function environmentCatalogEntry(environment: Environment, toolsetTools: readonly ToolDefinition[]): ToolCatalogEntry {
  const contexts = new WeakMap<LazySandboxes, ReturnType<ToolContextProvider>>();
  const contextFor = (sandboxes: LazySandboxes) => {
    let context = contexts.get(sandboxes);
    if (!context) {
      const absent = absentExample();
      let state: unknown;
      try {
        state = initialRolloutState(environment, absent.example);
      } catch (error) {
        // state() read the example: say that, not the setup failure it was wrapped in.
        throw absent.refusal() ?? error;
      }
      context = { example: absent.example, state, envArgs: environment.envArgs, sandbox: lazyEnvironmentSandbox(sandboxes) };
      contexts.set(sandboxes, context);
    }
    return context;
  };
  const listed = environmentToolDefinitions(environment, () => {
    throw new Error('tools/list entries are never called');
  });
  return Object.freeze({
    name: environment.name,
    tools: [...toolsetTools, ...listed],
    toolsFor: (sandboxes: LazySandboxes) => [...toolsetTools, ...environmentToolDefinitions(environment, () => contextFor(sandboxes))],
    instructions: environment.description || `The tools of the ${environment.name} environment.`,
  });
}
