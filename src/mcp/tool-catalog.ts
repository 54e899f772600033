/**
 * Environments are named bundles of toolsets, each served as its own MCP endpoint (/mcp/<env>, `corral mcp
 * <env>`). `wiki` exists only when a wiki index was loaded; `all` includes the wiki tools when it does.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { filesTools } from '../tools/files/files-toolset.js';
import { jsTools } from '../tools/js/js-toolset.js';
import { pythonTools } from '../tools/python/python-toolset.js';
import { shellTools } from '../tools/shell/shell-toolset.js';
import type { ToolDefinition } from '../tools/tool-definition.js';
import type { WikiLookup } from '../tools/wiki-tools/wiki-lookup.js';
import { wikiTools } from '../tools/wiki-tools/wiki-toolset.js';

export const ENVIRONMENT_NAMES = ['wiki', 'python', 'js', 'all'] as const;
export type EnvironmentName = (typeof ENVIRONMENT_NAMES)[number];
/** Served only by `corral serve --conformance-fixtures` (src/mcp/conformance-fixtures): the MCP conformance suite's test_* fixtures. */
export const CONFORMANCE_ENVIRONMENT_NAME = 'conformance';
export type ServedEnvironmentName = EnvironmentName | typeof CONFORMANCE_ENVIRONMENT_NAME;

export interface Environment {
  readonly name: ServedEnvironmentName;
  readonly tools: readonly ToolDefinition[];
  /** Sent to clients at initialize. */
  readonly instructions: string;
  /** Registrations beyond `tools` (resources, prompts, logging...) on each server built for this environment, before it connects. */
  readonly extendServer?: (server: McpServer) => void;
}

export interface EnvironmentCatalog {
  /** The environment, or undefined when unknown or not available here (e.g. wiki without a corpus). */
  get(name: string): Environment | undefined;
  names(): ServedEnvironmentName[];
}

const INSTRUCTIONS: Record<EnvironmentName, string> = {
  wiki: 'Search a Wikipedia corpus: search_pages to find pages, view_sections to see a page outline, read_section to read it.',
  python:
    'A private Linux sandbox with a persistent Python REPL (python), a shell (bash) and file tools, all sharing one workspace directory. No network access.',
  js: 'A persistent, isolated JavaScript context (javascript). No Node.js APIs, filesystem or network.',
  all: 'Every corral toolset: Python REPL, bash, files, a JavaScript context, and Wikipedia search when a corpus is loaded.',
};

export function buildEnvironmentCatalog(options: { wiki?: WikiLookup } = {}): EnvironmentCatalog {
  const wiki = options.wiki ? wikiTools(options.wiki) : undefined;
  const toolsets: Record<EnvironmentName, readonly ToolDefinition[] | undefined> = {
    wiki,
    python: [...pythonTools, ...shellTools, ...filesTools],
    js: jsTools,
    all: [...pythonTools, ...shellTools, ...filesTools, ...jsTools, ...(wiki ?? [])],
  };
  const environments = new Map<string, Environment>();
  for (const name of ENVIRONMENT_NAMES) {
    const tools = toolsets[name];
    if (tools) environments.set(name, Object.freeze({ name, tools, instructions: INSTRUCTIONS[name] }));
  }
  return {
    get: (name) => environments.get(name),
    names: () => [...environments.keys()] as EnvironmentName[],
  };
}
