/**
 * The tool catalog: named bundles of toolsets, each served as its own MCP endpoint (/mcp/<name>, /ws/<name>,
 * `corral mcp <name>`). Not the runner's Environment (runner/env/environment.ts: tools + dataset + rubric);
 * a catalog entry is only what a client sees: tools, instructions and extra registrations. `wiki` exists only
 * when a wiki index was loaded; `all` includes the wiki tools when it does.
 */
import type { McpServer, ServerEventBus } from '@modelcontextprotocol/server';
import type { ToolDefinition } from '../tools/tool-definition.js';
import type { ToolScope } from '../tools/tool-scope.js';
import type { LazySandboxes } from './lazy-sandboxes.js';
import type { ServerTasks } from './task-extension.js';
import type { WikiLookup } from '../tools/wiki/wiki-lookup.js';
import { type ToolsetName, toolsForToolsets } from './toolsets.js';

export const CATALOG_ENTRY_NAMES = ['wiki', 'python', 'js', 'all'] as const;
export type CatalogEntryName = (typeof CATALOG_ENTRY_NAMES)[number];
/** Served only by `corral serve --conformance-fixtures` (src/conformance): the MCP conformance suite's test_* fixtures. */
export const CONFORMANCE_ENTRY_NAME = 'conformance';
export type ServedEntryName = CatalogEntryName | typeof CONFORMANCE_ENTRY_NAME;

export interface ToolCatalogEntry {
  /** A catalog entry name, or the name of an environment `corral serve --env` serves. */
  readonly name: string;
  /** What tools/list shows and every server of this entry runs. */
  readonly tools: readonly ToolDefinition[];
  /**
   * The scope of calls made over one set of sandboxes (an environment's tools keep per-session state, keyed by the
   * set, so every server built over one handle or session sees the same state). Asked per call; may throw a
   * model-audience error (state() reading an absent example), reported as that call's result. Default: unscoped.
   */
  readonly scopeFor?: (sandboxes: LazySandboxes) => ToolScope<unknown, unknown>;
  /** Sent to clients at initialize. */
  readonly instructions: string;
  /**
   * Registrations beyond `tools` (resources, prompts, logging...) on each server built for this entry, before it
   * connects. It may replace tools/call, so servers of such entries get no fast path.
   */
  readonly extendServer?: (server: McpServer, context: ServerExtensionContext) => void;
  /**
   * Where changes to this entry's tool, prompt or resource lists are published (e.g. an operator reloading an
   * environment); every 2026-era `subscriptions/listen` stream on the entry hears them. Without it each HTTP
   * handler has a private bus nothing publishes on.
   */
  readonly changeEvents?: ServerEventBus;
  /**
   * Present when an operator can replace this entry's tools while it is served (a `corral serve --env` module
   * reloaded on SIGHUP): `tools` and `scopeFor` then always answer the current definition, and a swap is published
   * as tools_list_changed on `changeEvents`, which long-lived servers of the entry follow (their clients are told).
   */
  readonly reloads?: { readonly current: () => readonly ToolDefinition[] };
}

/** What an entry's extra registrations may use of the server they extend. */
export interface ServerExtensionContext {
  /** The host's tasks for this server's requests, when the server speaks the tasks extension. */
  readonly tasks?: ServerTasks;
}

export interface ToolCatalog {
  /** The entry, or undefined when unknown or not available here (e.g. wiki without a corpus). */
  get(name: string): ToolCatalogEntry | undefined;
  names(): string[];
}

const TOOLSETS: Record<CatalogEntryName, readonly ToolsetName[]> = {
  wiki: ['wiki'],
  python: ['python', 'shell', 'files'],
  js: ['js'],
  all: ['python', 'shell', 'files', 'js', 'wiki'],
};

const INSTRUCTIONS: Record<CatalogEntryName, string> = {
  wiki: 'Search a Wikipedia corpus: search_pages to find pages, view_sections to see a page outline, read_section to read it.',
  python:
    'A private Linux sandbox with a persistent Python REPL (python), a shell (bash) and file tools, all sharing one workspace directory. No network access.',
  js: 'A persistent, isolated JavaScript context (javascript). No Node.js APIs, filesystem or network.',
  all: 'Every corral toolset: Python REPL, bash, files, a JavaScript context, and Wikipedia search when a corpus is loaded.',
};

export function buildToolCatalog(options: { wiki?: WikiLookup } = {}): ToolCatalog {
  const entries = new Map<string, ToolCatalogEntry>();
  for (const name of CATALOG_ENTRY_NAMES) {
    // Without an index the wiki toolset is left out: of `all`, and with it the whole `wiki` entry.
    const toolsets = options.wiki ? TOOLSETS[name] : TOOLSETS[name].filter((toolset) => toolset !== 'wiki');
    if (toolsets.length === 0) continue;
    entries.set(name, Object.freeze({ name, tools: toolsForToolsets(toolsets, options), instructions: INSTRUCTIONS[name] }));
  }
  return {
    get: (name) => entries.get(name),
    names: () => [...entries.keys()] as CatalogEntryName[],
  };
}
