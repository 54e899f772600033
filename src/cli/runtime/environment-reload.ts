/**
 * Operator reloads of the environments `corral serve --env` loaded from a module file or a package: on SIGHUP each
 * is imported again from its path (a fresh module instance, not Node's cached one), checked, and on success its
 * tools replace the old ones behind the SAME catalog entry, so sessions, handles and streams that hold the entry
 * keep working; every one of them hears tools/list_changed. A reload that fails keeps the old definition and is
 * logged with its error code; the server keeps serving. Built-ins never change, so they are not reloadable.
 */
import { InMemoryServerEventBus } from '@modelcontextprotocol/server';
import { CorralError } from '../../core/errors.js';
import { describeEnvironmentSource } from '../../environment-packages/environment-source.js';
import type { LazySandboxes } from '../../mcp/lazy-sandboxes.js';
import type { ToolCatalog, ToolCatalogEntry } from '../../mcp/tool-catalog.js';
import { toolsForToolsets } from '../../mcp/toolsets.js';
import { bindEnvironmentArgs } from '../../runner/contract/environment-args.js';
import { loadEnvironmentModule } from '../../runner/environments/load-environment.js';
import { unscopedToolScope } from '../../tools/tool-scope.js';
import type { WikiLookup } from '../../tools/wiki/wiki-lookup.js';
import { environmentCatalogEntry, withServedEnvironments } from './environment-catalog-entries.js';
import type { ServedEnvironment, ServedEnvironments } from './served-environments.js';

export type ReloadOutcome = { name: string; reloaded: true; tools: string[] } | { name: string; reloaded: false; code: string; message: string };

export interface ReloadableCatalog {
  catalog: ToolCatalog;
  /** Reloads every reloadable entry (one reload at a time: a second call waits for the first) and logs each outcome. */
  reload(): Promise<ReloadOutcome[]>;
}

interface Reloadable {
  served: ServedEnvironment & { source: { kind: 'module' | 'package' } };
  current: ToolCatalogEntry;
  readonly entry: ToolCatalogEntry;
  readonly events: InMemoryServerEventBus;
}

/** withServedEnvironments, with the module- and package-served entries reloadable. */
export async function reloadableServedEnvironments(
  catalog: ToolCatalog,
  served: ServedEnvironments,
  options: { wiki: WikiLookup | undefined; log: (line: string) => void; loadTimeoutMs?: number },
): Promise<ReloadableCatalog> {
  const withEnvironments = await withServedEnvironments(catalog, served, options);
  const reloadables = new Map<string, Reloadable>();
  for (const name of served.names()) {
    const environment = served.get(name);
    const entry = withEnvironments.get(name);
    // Only the entries withServedEnvironments made from this environment (not a catalog entry of the same name).
    if (!environment || !entry || catalog.get(name) || environment.source.kind === 'built-in') continue;
    // A server built with no tools has no tools/list to swap behind (the SDK installs it with the first tool).
    if (entry.tools.length === 0) {
      options.log(`environment ${name}: has no tools, so SIGHUP does not reload it`);
      continue;
    }
    reloadables.set(name, reloadableEntry(environment as Reloadable['served'], entry));
  }
  let generation = 0;
  let running: Promise<ReloadOutcome[]> = Promise.resolve([]);
  const reloadAll = async (): Promise<ReloadOutcome[]> => {
    const outcomes: ReloadOutcome[] = [];
    for (const reloadable of reloadables.values()) {
      const outcome = await reloadOne(reloadable, String(++generation), served, options.wiki, options.loadTimeoutMs).catch((error: unknown) =>
        failure(reloadable, error),
      );
      options.log(
        outcome.reloaded
          ? `reloaded environment ${outcome.name}: tools ${outcome.tools.join(', ')}`
          : `reload of environment ${outcome.name} failed [${outcome.code}]: ${outcome.message}; still serving the previous definition`,
      );
      outcomes.push(outcome);
    }
    return outcomes;
  };
  return {
    catalog: {
      get: (name) => reloadables.get(name)?.entry ?? withEnvironments.get(name),
      names: () => withEnvironments.names(),
    },
    reload: () => (running = running.then(reloadAll, reloadAll)),
  };
}

/** One entry object for the whole life of the server; what it answers is whichever definition is current. */
function reloadableEntry(served: Reloadable['served'], initial: ToolCatalogEntry): Reloadable {
  const events = new InMemoryServerEventBus();
  const reloadable: Reloadable = {
    served,
    current: initial,
    events,
    entry: Object.freeze({
      name: initial.name,
      get tools() {
        return reloadable.current.tools;
      },
      scopeFor: (sandboxes: LazySandboxes) => reloadable.current.scopeFor?.(sandboxes) ?? unscopedToolScope(),
      get instructions() {
        return reloadable.current.instructions;
      },
      changeEvents: events,
      reloads: { current: () => reloadable.current.tools },
    }),
  };
  return reloadable;
}

async function reloadOne(
  reloadable: Reloadable,
  token: string,
  served: ServedEnvironments,
  wiki: WikiLookup | undefined,
  loadTimeoutMs: number | undefined,
): Promise<ReloadOutcome> {
  const { name, source } = reloadable.served;
  const path = source.kind === 'module' ? source.path : source.module;
  const definition = await loadEnvironmentModule(path, { reload: token, timeoutMs: loadTimeoutMs });
  const refuse = (message: string) => new CorralError('ENV_ERR_INVALID_MODULE', `environment module ${path}: ${message}`, { details: { path, name } });
  // The entry is served at /mcp/<name>: a module that now names another environment cannot take its place.
  if (definition.name !== name) throw refuse(`it now defines environment '${definition.name}', not '${name}'; restart serve to rename`);
  const environment = await bindEnvironmentArgs(definition, {});
  if (environment.toolsets.includes('wiki') && !wiki) throw refuse('it now needs the wiki tools and no corpus is loaded');
  const next = environmentCatalogEntry(environment, toolsForToolsets(environment.toolsets, { wiki }));
  const names = next.tools.map((tool) => tool.name);
  const duplicate = names.find((toolName, index) => names.indexOf(toolName) !== index);
  if (duplicate !== undefined) throw refuse(`two tools are named ${duplicate}`);
  if (names.length === 0) throw refuse('it has no tools');
  const refreshed = source.kind === 'module' ? describeEnvironmentSource({ kind: 'module', path }) : source;
  served.replace({ name, definition, source: refreshed });
  reloadable.served = { name, definition, source: refreshed } as Reloadable['served'];
  reloadable.current = next;
  reloadable.events.publish({ kind: 'tools_list_changed' });
  return { name, reloaded: true, tools: names };
}

function failure(reloadable: Reloadable, error: unknown): ReloadOutcome {
  const code = error instanceof CorralError ? error.code : 'ENV_ERR_INVALID_MODULE';
  return { name: reloadable.served.name, reloaded: false, code, message: (error as Error).message };
}
