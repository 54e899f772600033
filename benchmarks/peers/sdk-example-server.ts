/**
 * Peer for `corral bench mcp`: the smallest sessionful MCP server one writes by following the SDK's own examples
 * (simpleStreamableHttp: a map of session id -> transport, a new McpServer + NodeStreamableHTTPServerTransport on
 * each initialize, node:http with the SDK's localhost Host/Origin guards). It serves the same ToolDefinition as
 * corral, through McpServer.registerTool, so the difference measured is the serving stack, not the tool.
 */
import { randomUUID } from 'node:crypto';
import { type IncomingMessage, createServer } from 'node:http';
import { NodeStreamableHTTPServerTransport, localhostHostValidation, localhostOriginValidation } from '@modelcontextprotocol/node';
import { McpServer, isInitializeRequest } from '@modelcontextprotocol/server';
import { invokeTool } from '../../src/tools/invoke-tool.js';
import type { ToolDefinition } from '../../src/tools/tool-definition.js';
import { type ListeningServer, originOf } from './listening-server.js';

export const SDK_EXAMPLE_PATH = '/mcp';

function buildMcpServer(tool: ToolDefinition): McpServer {
  const server = new McpServer({ name: 'sdk-example-peer', version: '1.0.0' });
  server.registerTool(tool.name, { description: tool.description, inputSchema: tool.inputSchema, outputSchema: tool.outputSchema }, async (args, context) => {
    const result = await invokeTool(tool, args, { abortSignal: context.mcpReq.signal });
    return { content: [{ type: 'text', text: result.text }], structuredContent: result.structuredContent as Record<string, unknown> };
  });
  return server;
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

export async function startSdkExampleServer(tool: ToolDefinition): Promise<ListeningServer & { sessionCount(): number }> {
  const transports = new Map<string, NodeStreamableHTTPServerTransport>();
  const validateHost = localhostHostValidation();
  const validateOrigin = localhostOriginValidation();

  const httpServer = createServer(async (request, response) => {
    if (!validateHost(request, response) || !validateOrigin(request, response)) return;
    if (request.url !== SDK_EXAMPLE_PATH) return void response.writeHead(404).end();
    const sessionId = request.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
    if (existing) return existing.handleRequest(request, response);
    if (request.method === 'POST' && sessionId === undefined) {
      const body = await readJson(request).catch(() => undefined);
      if (isInitializeRequest(body)) {
        const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => void transports.set(id, transport),
        });
        transport.onclose = () => {
          if (transport.sessionId) transports.delete(transport.sessionId);
        };
        await buildMcpServer(tool).connect(transport);
        return transport.handleRequest(request, response, body);
      }
    }
    response
      .writeHead(400, { 'content-type': 'application/json' })
      .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: No valid session ID provided' }, id: null }));
  });
  // The bench's 32 clients stay connected for a whole round: no idle-socket cutoff in between.
  httpServer.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => httpServer.listen({ host: '127.0.0.1', port: 0 }, resolve));
  return {
    ...originOf(httpServer),
    sessionCount: () => transports.size,
    close: async () => {
      await Promise.all([...transports.values()].map((transport) => transport.close().catch(() => undefined)));
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
