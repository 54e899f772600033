/**
 * Puts the MCP conformance suite's fixtures on a server built by createToolServer: logging, the test_*
 * tools, resources (with subscriptions), prompts (with completion). Runs before the server connects.
 *
 * createToolServer installs its own tools/call handler (for corral's error routing), which knows only
 * ToolDefinitions. Fixture tools need raw MCP results and the request context (logs, progress,
 * sampling, elicitation), so this replaces tools/call with a dispatcher over the fixtures. That is only
 * right for a server without corral tools, which is why the fixtures live in their own environment.
 */
import { type CallToolResult, type McpServer, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { clientRequestFixtureTools } from './client-request-fixture-tools.js';
import { contentFixtureTools } from './content-fixture-tools.js';
import { registerFixturePrompts } from './fixture-prompts.js';
import { registerFixtureResources } from './fixture-resources.js';
import type { FixtureTool } from './fixture-tool.js';

export const CONFORMANCE_FIXTURE_TOOLS: readonly FixtureTool[] = [...contentFixtureTools, ...clientRequestFixtureTools];

export function registerConformanceFixtures(server: McpServer): void {
  // Declaring logging makes the SDK answer logging/setLevel and filter ctx.mcpReq.log by the level set.
  server.server.registerCapabilities({ logging: {} });

  const byName = new Map<string, FixtureTool>();
  for (const tool of CONFORMANCE_FIXTURE_TOOLS) {
    byName.set(tool.name, tool);
    // McpServer's registry feeds tools/list (schemas as JSON Schema); the callback is the same run() the dispatcher below uses.
    server.registerTool(tool.name, { description: tool.description, inputSchema: tool.inputSchema }, (args, context) =>
      tool.run((args ?? {}) as Record<string, unknown>, context),
    );
  }
  server.server.setRequestHandler('tools/call', async (request, context): Promise<CallToolResult> => {
    const tool = byName.get(request.params.name);
    // The answer McpServer and corral give: an unknown tool is protocol misuse, a JSON-RPC error.
    if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${request.params.name} not found`);
    const validation = await tool.inputSchema['~standard'].validate(request.params.arguments ?? {});
    if (validation.issues) {
      const problems = validation.issues.map((issue) => issue.message).join('; ');
      // Schema-invalid arguments are a result the model can read and correct (spec 2025-11-25), not a protocol error.
      return { content: [{ type: 'text', text: `invalid arguments for tool ${tool.name}: ${problems}` }], isError: true };
    }
    return tool.run(validation.value as Record<string, unknown>, context);
  });

  registerFixtureResources(server);
  registerFixturePrompts(server);
}
