/**
 * MCP over WebSocket at /ws/:env and /ws/:env/:id, for trainers that hold one connection open: the same
 * JSON-RPC messages as HTTP, one per text frame, many calls in flight. Upgrades bypass fastify's hooks,
 * so the same Host/Origin/token guards run here by hand before the handshake completes.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { WebSocketServer } from 'ws';
import { type CorkableStream, WebSocketServerTransport } from '../mcp/websocket-server-transport.js';
import { jsonRpcErrorBody } from '../mcp/json-rpc-errors.js';
import { allowedHostnames, allowedOriginHostnames, checkBearerToken, checkHostAndOrigin } from './request-guards.js';

const WEBSOCKET_PATH = /^\/ws\/([^/]+)(?:\/([^/]+))?\/?$/;

export function addWebSocketEndpoint(app: FastifyInstance): void {
  const { config, host, resolvePrincipal, quotas } = app.corral;
  const hosts = allowedHostnames(config.server);
  const origins = allowedOriginHostnames(config.server);
  const sockets = new WebSocketServer({ noServer: true, maxPayload: config.server.bodyLimitBytes });

  app.server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const match = WEBSOCKET_PATH.exec(new URL(request.url ?? '/', 'http://localhost').pathname);
    if (!match) return refuse(socket, 404, 'Not found');
    const refusal = checkHostAndOrigin(request.headers, hosts, origins) ?? checkBearerToken(request.headers, config.server.token);
    if (refusal) return refuse(socket, refusal.status, refusal.message);
    const environment = host.environment(decodeURIComponent(match[1]!));
    if (!environment) return refuse(socket, 404, `no environment named ${match[1]}`);
    const principal = resolvePrincipal(request.headers, request.socket.remoteAddress);
    const handleId = match[2] === undefined ? undefined : decodeURIComponent(match[2]);
    if (handleId !== undefined && !host.describeHandle(handleId, principal)) return refuse(socket, 404, `no sandbox ${handleId}`);
    sockets.handleUpgrade(request, socket, head, (webSocket) => {
      const stream = underlyingStream(webSocket);
      const transport = new WebSocketServerTransport(webSocket, {
        ...(stream ? { stream } : {}),
        maxBufferedBytes: config.server.maxBufferedBytesPerConnection,
        dispatch: (deliver) => quotas.runAs(principal, deliver),
      });
      const connection = host.serveConnection(environment, transport, { principal, ...(handleId === undefined ? {} : { handleId }) });
      // The handle can vanish between the check above and the handshake.
      if (!connection) return webSocket.close(1008, 'sandbox not found');
      webSocket.on('close', () => void connection.close());
    });
  });

  app.addHook('preClose', async () => {
    for (const client of sockets.clients) client.close(1001, 'server shutting down');
    await new Promise<void>((resolve) => sockets.close(() => resolve()));
  });
}

/** Answers a refused upgrade with a plain HTTP response, then drops the socket. */
function refuse(socket: Duplex, status: number, message: string): void {
  const body = JSON.stringify(jsonRpcErrorBody(message));
  const reason = { 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found' }[status] ?? 'Error';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** ws keeps its net.Socket on a private field; batching frames needs it, and everything still works without it. */
function underlyingStream(webSocket: object): CorkableStream | undefined {
  const stream = (webSocket as { _socket?: Partial<CorkableStream> })._socket;
  return typeof stream?.cork === 'function' && typeof stream.uncork === 'function' && typeof stream.once === 'function'
    ? (stream as CorkableStream)
    : undefined;
}
