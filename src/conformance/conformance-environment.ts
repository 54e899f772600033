/**
 * The `conformance` environment: no corral tools, only the conformance suite's fixtures, served at
 * /mcp/conformance by `corral serve --conformance-fixtures` and nowhere else. A separate environment
 * rather than extra registrations on python/js/all, so the test_* tools never reach a model's tool list
 * and the fixtures' tools/call dispatcher never shadows corral's own.
 */
import { InMemoryServerEventBus, type McpServer } from '@modelcontextprotocol/server';
import { CONFORMANCE_ENTRY_NAME, type ServerExtensionContext, type ToolCatalog, type ToolCatalogEntry } from '../mcp/tool-catalog.js';
import { registerConformanceFixtures } from './register-conformance-fixtures.js';

/** One bus for the environment: a trigger fixture called on one request reaches the listen streams of others. */
const changeEvents = new InMemoryServerEventBus();

export const conformanceEnvironment: ToolCatalogEntry = Object.freeze({
  name: CONFORMANCE_ENTRY_NAME,
  tools: [],
  instructions:
    'Fixtures for the MCP conformance suite (@modelcontextprotocol/conformance): test_* tools, test:// resources and test_* prompts. Not a working environment.',
  extendServer: (server: McpServer, context: ServerExtensionContext) => registerConformanceFixtures(server, changeEvents, context.tasks),
  changeEvents,
});

/** The catalog plus the conformance environment. */
export function withConformanceEnvironment(catalog: ToolCatalog): ToolCatalog {
  return {
    get: (name) => (name === CONFORMANCE_ENTRY_NAME ? conformanceEnvironment : catalog.get(name)),
    names: () => [...catalog.names(), CONFORMANCE_ENTRY_NAME],
  };
}
