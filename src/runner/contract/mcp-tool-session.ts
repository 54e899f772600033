/**
 * A ToolSession over an MCP client: the runner's only road to tools, whether the server is in this process
 * (in-memory linked pair), on this machine, or on another one (Streamable HTTP / WebSocket).
 */
import { Client, ProtocolError, type Transport } from '@modelcontextprotocol/client';
import { sharedSchemaValidator } from './shared-schema-validator.js';
import type { ToolInfo, ToolOutcome } from './tool-access.js';
import type { ToolSession } from './tool-session.js';
import { corralVersion } from '../../core/project-root.js';

export async function openMcpToolSession(
  transport: Transport,
  options: { abortSignal?: AbortSignal; onClose?: () => Promise<void> } = {},
): Promise<ToolSession> {
  const client = new Client({ name: 'corral-runner', version: corralVersion() }, { jsonSchemaValidator: sharedSchemaValidator });
  await client.connect(transport);
  let tools: ToolInfo[];
  try {
    const listed = await client.listTools(undefined, { signal: options.abortSignal });
    tools = listed.tools.map((tool) => ({ name: tool.name, description: tool.description ?? '', inputSchema: tool.inputSchema as Record<string, unknown> }));
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  }
  const known = new Set(tools.map((tool) => tool.name));
  return {
    tools,
    async call(name, args, callOptions = {}): Promise<ToolOutcome> {
      if (!known.has(name)) return { text: `Error: unknown tool '${name}'. Available tools: ${[...known].join(', ')}.`, isError: true };
      try {
        const result = await client.callTool({ name, arguments: args }, { signal: callOptions.abortSignal, timeout: callOptions.timeoutMs });
        const text = (result.content ?? []).map((block) => (block.type === 'text' ? block.text : `[${block.type} content]`)).join('\n');
        const structured = result.structuredContent;
        return {
          text,
          isError: result.isError === true,
          ...(structured && typeof structured === 'object' ? { structuredContent: structured as Record<string, unknown> } : {}),
        };
      } catch (error) {
        // Protocol errors without a corral infrastructure code are the caller's mistake (e.g. invalid params): the model can read and fix them.
        if (error instanceof ProtocolError && !hasCorralCode(error.data)) return { text: `Error: ${error.message}`, isError: true };
        throw error;
      }
    },
    async close() {
      await client.close().catch(() => undefined);
      await options.onClose?.();
    },
  };
}

function hasCorralCode(data: unknown): boolean {
  return typeof data === 'object' && data !== null && typeof (data as { corralCode?: unknown }).corralCode === 'string';
}
