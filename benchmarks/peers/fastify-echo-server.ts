/**
 * Ceiling for `corral bench mcp`: a bare fastify route that parses the JSON-RPC body and answers a tools/call
 * shaped result with no MCP layer at all. Nothing built on fastify can serve calls faster on this machine.
 */
import Fastify from 'fastify';
import { type ListeningServer, originOf } from './listening-server.js';

export const ECHO_PATH = '/echo';

export async function startFastifyEchoServer(): Promise<ListeningServer> {
  const app = Fastify({ logger: false, keepAliveTimeout: 65_000 });
  app.post<{ Body: { id?: unknown } }>(ECHO_PATH, async (request) => ({
    jsonrpc: '2.0',
    id: request.body.id ?? null,
    result: { content: [{ type: 'text', text: 'ok' }] },
  }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { ...originOf(app.server), close: () => app.close() };
}
