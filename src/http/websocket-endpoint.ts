/**
 * MCP over WebSocket at /ws/:env and /ws/:env/:id, for trainers that hold one connection open: the same
 * JSON-RPC messages as HTTP, one per text frame, many calls in flight; and the episode API's reset/step/state form
 * at /ws/episodes (episodes-websocket.ts) when the server has episodes. Upgrades bypass fastify's hooks, so the same
 * Host/Origin/token guards run here by hand before the handshake completes.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { WebSocketServer } from 'ws';
import { type CorkableStream, WebSocketServerTransport } from '../mcp/websocket-server-transport.js';
import { jsonRpcErrorBody } from '../mcp/json-rpc-errors.js';
import type { EpisodeService } from './episodes-contract.js';
import { serveEpisodeSocket } from './episodes-websocket.js';
import { allowedHostnames, allowedOriginHostnames, checkBearerToken, checkHostAndOrigin } from './request-guards.js';

const WEBSOCKET_PATH = /^\/ws\/([^/]+)(?:\/([^/]+))?\/?$/;
/** Taken before environment names: `episodes` is not an environment name a server can serve beside the episode API. */
const EPISODES_PATH = /^\/ws\/episodes\/?$/;

export function addWebSocketEndpoint(app: FastifyInstance, options: { episodes?: EpisodeService } = {}): void {
  const { config, host, resolvePrincipal, quotas } = app.corral;
  const hosts = allowedHostnames(config.server);
  const origins = allowedOriginHostnames(config.server);
  const sockets = new WebSocketServer({ noServer: true, maxPayload: config.server.bodyLimitBytes });

  app.server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
    const match = WEBSOCKET_PATH.exec(pathname);
    if (!match) return refuse(socket, 404, 'Not found');
    const refusal = checkHostAndOrigin(request.headers, hosts, origins) ?? checkBearerToken(request.headers, config.server.token);
    if (refusal) return refuse(socket, refusal.status, refusal.message);
    const episodes = options.episodes;
    if (episodes && EPISODES_PATH.test(pathname)) {
      const principal = resolvePrincipal(request.headers, request.socket.remoteAddress);
      return sockets.handleUpgrade(request, socket, head, (webSocket) =>
        serveEpisodeSocket(webSocket, {
          service: episodes,
          principal,
          quotas,
          maxEpisodeForks: config.server.maxEpisodeForks,
          log: (details, message) => app.log.warn(details, message),
        }),
      );
    }
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
