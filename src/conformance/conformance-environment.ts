/**
 * The `conformance` environment: no corral tools, only the conformance suite's fixtures, served at
 * /mcp/conformance by `corral serve --conformance-fixtures` and nowhere else. A separate environment
 * rather than extra registrations on python/js/all, so the test_* tools never reach a model's tool list
 * and the fixtures' tools/call dispatcher never shadows corral's own.
 */
import { CONFORMANCE_ENVIRONMENT_NAME, type Environment, type EnvironmentCatalog } from '../mcp/environments.js';
import { registerConformanceFixtures } from './register-conformance-fixtures.js';

export const conformanceEnvironment: Environment = Object.freeze({
  name: CONFORMANCE_ENVIRONMENT_NAME,
  tools: [],
  instructions: 'Fixtures for the MCP conformance suite (@modelcontextprotocol/conformance): test_* tools, test:// resources and test_* prompts. Not a working environment.',
  extendServer: registerConformanceFixtures,
});

/** The catalog plus the conformance environment. */
export function withConformanceEnvironment(catalog: EnvironmentCatalog): EnvironmentCatalog {
  return {
    get: (name) => (name === CONFORMANCE_ENVIRONMENT_NAME ? conformanceEnvironment : catalog.get(name)),
    names: () => [...catalog.names(), CONFORMANCE_ENVIRONMENT_NAME],
  };
}
