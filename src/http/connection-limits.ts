/**
 * Connection limits for one HTTP server (docs/security.md), against floods of sockets and clients that do not
 * read. Caps (connection-shares.ts: derived from the descriptor limit, one address at most half) count open
 * connections in total and per remote address (the exact address: 127.0.0.1 and 127.0.0.2 are two); at a cap the
 * connection IDLE the longest (no request in flight, not a WebSocket; a kept-alive one only after the keep-alive
 * timeout the server advertises, since its client may reuse it until then) is closed to make room, so held-open sockets can never lock fresh clients
 * out, whatever address they share. When none qualifies the newcomer is answered 503, and refused sockets
 * linger for their answer only up to a bound, so a flood of them cannot use up the descriptors the caps leave in
 * reserve.
 * A connection that completes no request within firstRequestTimeoutMs is closed. A connection whose unsent
 * output exceeds maxBufferedBytesPerConnection is not read until it drains, and is closed when it stays stuck
 * (see sweep) for slowClientGraceMs (HTTP pipelining, streams and WebSockets alike).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { unmappedAddress } from './principal.js';
import type { ErrorCode } from '../core/errors.js';
import { jsonRpcErrorBody } from '../mcp/json-rpc-errors.js';

export interface ConnectionLimitSettings {
  maxConnections: number;
  maxConnectionsPerAddress: number;
  maxLingeringRefusals: number;
  firstRequestTimeoutMs: number;
  maxBufferedBytesPerConnection: number;
  slowClientGraceMs: number;
}

export type ConnectionRefusal = 'connection_refused' | 'connection_evicted' | 'first_request_timeout' | 'slow_reader_closed';

interface TrackedConnection {
  readonly socket: Socket;
  readonly address: string;
  requestsInFlight: number;
  /** Requests this connection has carried: a kept-alive one may have the next in transit. */
  requestsServed: number;
  /** When the connection last became idle (or was accepted). */
  idleSinceMs: number;
  upgraded: boolean;
  firstRequestTimer?: NodeJS.Timeout;
  /** When the connection was first seen stuck (see sweep); undefined while it is not. */
  stuckSinceMs?: number;
  /** Bytes handed to the OS at the last sweep, to tell a slow reader from one that reads nothing. */
  flushedBytes: number;
  pausedForBackpressure: boolean;
}

/**
 * A connection that has not carried a request yet is not evicted for this long: its client's first request may be in
 * transit (1,000 SDK clients connecting at once lost 1,338 fresh connections this way, issue 21). A socket held open
 * without a request (a flood) is evicted once it is older.
 */
const FIRST_REQUEST_GRACE_MS = 2_000;

/** Node's own default, for a server whose keep-alive timeout is unknown (attach() not called yet). */
const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 5_000;

/** A refused socket gets this long to read its 503 before it is dropped. */
const REFUSAL_LINGER_MS = 1_000;

export class ConnectionLimits {
  /** Insertion order is age order, which eviction relies on. */
  private readonly connections = new Map<Socket, TrackedConnection>();
  private readonly perAddress = new Map<string, number>();
  private readonly sweepTimer: NodeJS.Timeout;
  private lingeringRefusals = 0;
  private server: Server | undefined;

  constructor(
    private readonly settings: ConnectionLimitSettings,
    private readonly onRefused: (reason: ConnectionRefusal) => void = () => undefined,
  ) {
    const sweepMs = Math.max(50, Math.min(1_000, settings.slowClientGraceMs / 4));
    this.sweepTimer = setInterval(() => this.sweep(), sweepMs);
    this.sweepTimer.unref();
  }

  /**
   * Connections are admitted before any listener sees them, and a refused one never reaches Node's HTTP parser (it
   * would answer the request on a socket already answered); requests and upgrades are prepended, so the counts are
   * right before fastify and the WebSocket endpoint see the event.
   */
  attach(server: Server): void {
    this.server = server;
    const emit = server.emit.bind(server) as (event: string | symbol, ...args: unknown[]) => boolean;
    server.emit = ((event: string | symbol, ...args: unknown[]) => {
      if (event === 'connection' && !this.admit(args[0] as Socket)) return true;
      return emit(event, ...args);
    }) as typeof server.emit;
    server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => this.requestStarted(request.socket, response));
    server.prependListener('upgrade', (request: IncomingMessage) => this.upgraded(request.socket));
    server.once('close', () => this.close());
  }

  get size(): number {
    return this.connections.size;
  }

  close(): void {
    clearInterval(this.sweepTimer);
    for (const connection of this.connections.values()) clearTimeout(connection.firstRequestTimer);
  }

  /** False when the socket was refused (answered here, never handed on). */
  private admit(socket: Socket): boolean {
    const address = unmappedAddress(socket.remoteAddress);
    const atAddressCap = (this.perAddress.get(address) ?? 0) >= this.settings.maxConnectionsPerAddress && !this.evictOldestIdle(address);
    if (atAddressCap || (this.connections.size >= this.settings.maxConnections && !this.evictOldestIdle(undefined))) {
      this.refuse(socket);
      return false;
    }
    const connection: TrackedConnection = {
      socket,
      address,
      requestsInFlight: 0,
      requestsServed: 0,
      idleSinceMs: Date.now(),
      upgraded: false,
      pausedForBackpressure: false,
      flushedBytes: 0,
    };
    connection.firstRequestTimer = setTimeout(() => {
      this.onRefused('first_request_timeout');
      socket.destroy();
    }, this.settings.firstRequestTimeoutMs);
    connection.firstRequestTimer.unref();
    this.connections.set(socket, connection);
    this.perAddress.set(address, (this.perAddress.get(address) ?? 0) + 1);
    socket.once('close', () => this.forget(connection));
    socket.on('drain', () => this.resumeIfDrained(connection));
    return true;
  }

  private requestStarted(socket: Socket, response: ServerResponse): void {
    const connection = this.connections.get(socket);
    if (!connection) return;
    clearTimeout(connection.firstRequestTimer);
    connection.requestsInFlight++;
    connection.requestsServed++;
    response.once('close', () => {
      if (--connection.requestsInFlight === 0) connection.idleSinceMs = Date.now();
    });
    // Pipelined requests parsed while earlier answers sit unsent: stop reading more until the client reads.
    this.pauseIfOverBound(connection);
  }

  private upgraded(socket: Socket): void {
    const connection = this.connections.get(socket);
    if (!connection) return;
    clearTimeout(connection.firstRequestTimer);
    connection.upgraded = true;
  }

  /**
   * Closes the connection (of `address`, or of anyone) idle the longest: no request in flight, not a WebSocket, and
   * either idle past the keep-alive timeout the server advertises or never used and older than FIRST_REQUEST_GRACE_MS.
   * A client that honours Keep-Alive may send its next request on a used connection until then, and that request (a
   * session's closing DELETE, say) would die with a bare connection reset (issue 21); Node itself closes the
   * connection at that timeout, so in practice only a socket held open without a request (a flood) is evicted.
   * False when there is none, and the newcomer is refused with a typed 503.
   */
  private evictOldestIdle(address: string | undefined): boolean {
    const nowMs = Date.now();
    const keepAliveMs = this.keepAliveTimeoutMs();
    let oldest: TrackedConnection | undefined;
    for (const connection of this.connections.values()) {
      if (connection.requestsInFlight > 0 || connection.upgraded) continue;
      if (address !== undefined && connection.address !== address) continue;
      if (nowMs - connection.idleSinceMs < (connection.requestsServed > 0 ? keepAliveMs : FIRST_REQUEST_GRACE_MS)) continue;
      if (!oldest || connection.idleSinceMs < oldest.idleSinceMs) oldest = connection;
    }
    if (!oldest) return false;
    this.forget(oldest);
    oldest.socket.destroy();
    this.onRefused('connection_evicted');
    return true;
  }

  /** Read when needed: the server's keepAliveTimeout (fastify sets it after attach) is what its Keep-Alive header says. */
  private keepAliveTimeoutMs(): number {
    return this.server?.keepAliveTimeout || DEFAULT_KEEP_ALIVE_TIMEOUT_MS;
  }

  private refuse(socket: Socket): void {
    this.onRefused('connection_refused');
    const body = JSON.stringify(
      jsonRpcErrorBody('Service unavailable: the server is at its connection limit with every connection busy; retry later', undefined, {
        code: 'HTTP_ERR_CONNECTION_LIMIT' satisfies ErrorCode,
      }),
    );
    const answer = `HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n${body}`;
    socket.on('error', () => undefined);
    // Under a flood, the answer is written (a small write goes out at once) and the descriptor freed without waiting.
    if (this.lingeringRefusals >= this.settings.maxLingeringRefusals) {
      socket.end(answer);
      return void socket.destroy();
    }
    this.lingeringRefusals++;
    socket.once('close', () => this.lingeringRefusals--);
    // Answered once the client's request starts to arrive: an answer that comes before the request is a protocol
    // error to HTTP clients such as undici (fetch, the MCP SDK), which report it as a bare connection reset.
    socket.once('data', () => socket.end(answer));
    socket.resume();
    setTimeout(() => socket.destroy(), REFUSAL_LINGER_MS).unref();
  }

  private pauseIfOverBound(connection: TrackedConnection): void {
    if (connection.pausedForBackpressure || connection.socket.writableLength <= this.settings.maxBufferedBytesPerConnection) return;
    connection.pausedForBackpressure = true;
    connection.socket.pause();
  }

  private resumeIfDrained(connection: TrackedConnection): void {
    if (!connection.pausedForBackpressure || connection.socket.writableLength > this.settings.maxBufferedBytesPerConnection) return;
    connection.pausedForBackpressure = false;
    connection.socket.resume();
  }

  /**
   * Streams (SSE, NDJSON, WebSocket) grow their output without new requests: check every connection. One is
   * stuck while its unsent output is above the bound, or while it has unsent output and none of it was sent
   * since the last sweep (Node's own pipelining backpressure stops reading below our bound, so such a
   * client would otherwise hold its connection and buffers forever). Stuck for the grace period: closed.
   */
  private sweep(): void {
    const nowMs = Date.now();
    for (const connection of this.connections.values()) {
      const unsent = connection.socket.writableLength;
      const flushed = connection.socket.bytesWritten - unsent;
      const progressed = flushed !== connection.flushedBytes;
      connection.flushedBytes = flushed;
      if (unsent <= this.settings.maxBufferedBytesPerConnection && (unsent === 0 || progressed)) {
        connection.stuckSinceMs = undefined;
        continue;
      }
      this.pauseIfOverBound(connection);
      connection.stuckSinceMs ??= nowMs;
      if (nowMs - connection.stuckSinceMs < this.settings.slowClientGraceMs) continue;
      this.forget(connection);
      connection.socket.destroy();
      this.onRefused('slow_reader_closed');
    }
  }

  private forget(connection: TrackedConnection): void {
    if (this.connections.get(connection.socket) !== connection) return;
    clearTimeout(connection.firstRequestTimer);
    this.connections.delete(connection.socket);
    const left = (this.perAddress.get(connection.address) ?? 1) - 1;
    if (left > 0) this.perAddress.set(connection.address, left);
    else this.perAddress.delete(connection.address);
  }
}
