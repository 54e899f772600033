/**
 * Puts the MCP conformance suite's fixtures on a server built by createToolServer: logging, the test_*
 * tools, resources (with subscriptions), prompts (with completion). Runs before the server connects.
 *
 * createToolServer installs its own tools/call handler (for corral's error routing), which knows only
 * ToolDefinitions. Fixture tools need raw MCP results and the request context (logs, progress,
 * sampling, elicitation), so this replaces tools/call with a dispatcher over the fixtures. That is only
 * right for a server without corral tools, which is why the fixtures live in their own environment.
 */
import {
  type CallToolResult,
  type InputRequiredResult,
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type ServerEventBus,
} from '@modelcontextprotocol/server';
import { clientRequestFixtureTools } from './client-request-fixture-tools.js';
import { contentFixtureTools } from './content-fixture-tools.js';
import { registerFixturePrompts } from './fixture-prompts.js';
import { registerFixtureResources } from './fixture-resources.js';
import type { FixtureTool } from './fixture-tool.js';
import { inputRequiredFixtureTools } from './input-required-fixture-tools.js';
import { statelessDiagnosticFixtureTools } from './stateless-diagnostic-fixture-tools.js';
import { taskFixtureTools } from './task-fixture-tools.js';
import { type ServerTasks, requestDeclaresTasks, startToolTask } from '../mcp/task-extension.js';

export function conformanceFixtureTools(changes: ServerEventBus): readonly FixtureTool[] {
  return [...contentFixtureTools, ...clientRequestFixtureTools, ...inputRequiredFixtureTools, ...statelessDiagnosticFixtureTools(changes), ...taskFixtureTools];
}

/**
 * `changes` is the bus the environment's subscriptions/listen streams hear; the test_trigger_* fixtures publish on it.
 * `tasks` (the host's, when it serves the tasks extension) is where the task fixtures' calls become tasks.
 */
export function registerConformanceFixtures(server: McpServer, changes: ServerEventBus, tasks?: ServerTasks): void {
  // Declaring logging makes the SDK answer logging/setLevel and filter ctx.mcpReq.log by the level set.
  // listChanged: the trigger fixtures announce changed lists on subscription streams (declared in server/discover too).
  server.server.registerCapabilities({ logging: {}, tools: { listChanged: true }, prompts: { listChanged: true }, resources: { listChanged: true } });

  const byName = new Map<string, FixtureTool>();
  for (const tool of conformanceFixtureTools(changes)) {
    byName.set(tool.name, tool);
    // McpServer's registry feeds tools/list (schemas as JSON Schema); the callback is the same run() the dispatcher below uses.
    server.registerTool(tool.name, { description: tool.description, inputSchema: tool.inputSchema }, (args, context) =>
      tool.run((args ?? {}) as Record<string, unknown>, context),
    );
  }
  server.server.setRequestHandler('tools/call', async (request, context): Promise<CallToolResult | InputRequiredResult> => {
    const tool = byName.get(request.params.name);
    // The answer McpServer and corral give: an unknown tool is protocol misuse, a JSON-RPC error.
    if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${request.params.name} not found`);
    const validation = await tool.inputSchema['~standard'].validate(request.params.arguments ?? {});
    if (validation.issues) {
      const problems = validation.issues.map((issue) => issue.message).join('; ');
      // Schema-invalid arguments are a result the model can read and correct (spec 2025-11-25), not a protocol error.
      return { content: [{ type: 'text', text: `invalid arguments for tool ${tool.name}: ${problems}` }], isError: true };
    }
    const args = validation.value as Record<string, unknown>;
    if (!tool.task || !tasks || !requestDeclaresTasks(server, context, request.params)) return tool.run(args, context);
    const early = await tool.task.before?.(args, context);
    if (early) return early;
    const work = tool.task.work;
    // Fixtures always become tasks (no immediate-result window): the scenarios expect a task id for every one.
    return startToolTask(tasks, (control) => work(args, control, context)) as Promise<CallToolResult>;
  });

  registerFixtureResources(server);
  registerFixturePrompts(server);
}
