/**
 * Which connection makes room at a connection cap (issue 21: under 1,000 concurrent sessions a client request died
 * with a bare connection error). The one idle the longest goes, not the one connected first: a kept-alive
 * connection that keeps being reused is the oldest but is never idle for long, and its next request may already be
 * in transit when it is closed. A kept-alive connection used within the keep-alive timeout the server advertises is
 * never closed for a newcomer; when nothing else qualifies, the newcomer gets a typed 503 instead. Real sockets against a listening server.
 */
import { type Socket, connect } from 'node:net';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { CorralError } from '../../src/core/errors.js';
import { buildServer } from '../../src/http/build-server.js';
import { buildToolCatalog } from '../../src/mcp/tool-catalog.js';

/** One kept-alive HTTP/1.1 connection sending GET /healthz and reading each answer whole. */
class KeptAliveConnection {
  private buffered = '';
  /** The body of the last answer read. */
  lastBody = '';
  private waiting: ((answer: string) => void) | undefined;
  readonly closed: Promise<void>;
  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffered += chunk.toString();
      this.deliver();
    });
    socket.on('error', () => undefined);
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    void this.closed.then(() => this.waiting?.('closed'));
  }

  static open(port: number): Promise<KeptAliveConnection> {
    return new Promise((resolve) => {
      const socket = connect({ host: '127.0.0.1', port }, () => resolve(new KeptAliveConnection(socket)));
    });
  }

  /** The status line of the answer, or 'closed' when the server closed the connection instead. */
  healthz(port: number): Promise<string> {
    const answer = new Promise<string>((resolve) => (this.waiting = resolve));
    if (this.socket.destroyed) return Promise.resolve('closed');
    this.socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    return answer;
  }

  private deliver(): void {
    const headerEnd = this.buffered.indexOf('\r\n\r\n');
    if (headerEnd < 0 || !this.waiting) return;
    const length = Number(/content-length: (\d+)/i.exec(this.buffered.slice(0, headerEnd))?.[1] ?? 0);
    if (this.buffered.length < headerEnd + 4 + length) return;
    const statusLine = this.buffered.slice(0, this.buffered.indexOf('\r\n'));
    this.lastBody = this.buffered.slice(headerEnd + 4, headerEnd + 4 + length);
    this.buffered = this.buffered.slice(headerEnd + 4 + length);
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting(statusLine);
  }
}

const KEEP_ALIVE_MS = 1_000;

describe('eviction at the per-address connection cap', () => {
  const config = loadConfig({ env: {}, flags: { host: '127.0.0.1', port: 0 } });
  const app = buildServer(
    { ...config, server: { ...config.server, maxConnections: 8, maxConnectionsPerAddress: 4, firstRequestTimeoutMs: 60_000 } },
    { environments: buildToolCatalog(), sandboxSource: { acquire: () => Promise.reject(new CorralError('SBX_ERR_UNAVAILABLE', 'none here')) } },
  );
  let port = 0;
  /** Requests that reached the routes: a refused connection's request never does. */
  let routed = 0;
  app.addHook('onRequest', async () => void routed++);
  const opened: KeptAliveConnection[] = [];
  const open = async () => {
    const connection = await KeptAliveConnection.open(port);
    opened.push(connection);
    return connection;
  };
  beforeAll(async () => {
    // Used connections are spared for the keep-alive timeout the server advertises: a short one keeps the test short.
    app.server.keepAliveTimeout = KEEP_ALIVE_MS;
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const connection of opened) connection.socket.destroy();
    await app.close();
  });

  it('spares connections whose first request is still to come, and answers the newcomer a typed 503 an HTTP client reads', async () => {
    // Four clients connected, their requests not sent yet (in transit, as when 1,000 SDK clients connect at once).
    const fresh = [await open(), await open(), await open(), await open()];
    const dispatcher = new Agent();
    const answer = await request(`http://127.0.0.1:${port}/healthz`, { dispatcher });
    expect(answer.statusCode).toBe(503);
    expect(await answer.body.text()).toContain('"code":"HTTP_ERR_CONNECTION_LIMIT"');
    await dispatcher.close();
    const routedBefore = routed;
    const refused = await open();
    expect(await refused.healthz(port)).toBe('HTTP/1.1 503 Service Unavailable');
    await refused.closed;
    expect(routed).toBe(routedBefore);
    for (const connection of fresh) expect(await connection.healthz(port)).toBe('HTTP/1.1 200 OK');
    for (const connection of fresh) connection.socket.destroy();
    await Promise.all(fresh.map((connection) => connection.closed));
    // The next test starts from an empty server.
    await vi.waitFor(async () => expect(await new Promise((resolve) => app.server.getConnections((_error, count) => resolve(count)))).toBe(0));
  });

  it('spares kept-alive connections used within the keep-alive timeout, refuses with a typed 503, evicts a never-used one', async () => {
    const reused = await open();
    expect(await reused.healthz(port)).toBe('HTTP/1.1 200 OK');
    const others = [await open(), await open(), await open()];
    for (const other of others) expect(await other.healthz(port)).toBe('HTTP/1.1 200 OK');
    // The first connection is the oldest, and the most recently used.
    expect(await reused.healthz(port)).toBe('HTTP/1.1 200 OK');

    // Every connection was used within the keep-alive timeout: none is closed under its client; the newcomer is refused, typed.
    const refused = await open();
    expect(await refused.healthz(port)).toBe('HTTP/1.1 503 Service Unavailable');
    expect(refused.lastBody).toContain('"code":"HTTP_ERR_CONNECTION_LIMIT"');
    // An HTTP client that sends its request on a fresh connection (undici, as fetch and the MCP SDK use) reads the
    // same typed answer to its request, never a bare reset.
    const dispatcher = new Agent();
    const answer = await request(`http://127.0.0.1:${port}/healthz`, { dispatcher });
    expect(answer.statusCode).toBe(503);
    expect(await answer.body.text()).toContain('"code":"HTTP_ERR_CONNECTION_LIMIT"');
    await dispatcher.close();
    expect(await reused.healthz(port)).toBe('HTTP/1.1 200 OK');

    // Past the keep-alive timeout the idle ones are gone (the server advertised it); the one reused within it stays.
    await new Promise((resolve) => setTimeout(resolve, KEEP_ALIVE_MS / 2));
    expect(await reused.healthz(port)).toBe('HTTP/1.1 200 OK');
    await Promise.all(others.map((other) => other.closed));
    expect(await reused.healthz(port)).toBe('HTTP/1.1 200 OK');

    // A connection that never carried a request (held open) makes room for a newcomer.
    const admitted = [await open(), await open()];
    for (const connection of admitted) expect(await connection.healthz(port)).toBe('HTTP/1.1 200 OK');
    const heldOpen = await open();
    // Once past the grace a fresh connection gets for its first request to arrive; the used ones kept in use meanwhile.
    for (let wait = 0; wait < 5; wait++) {
      await new Promise((resolve) => setTimeout(resolve, KEEP_ALIVE_MS / 2));
      for (const connection of [reused, ...admitted]) expect(await connection.healthz(port)).toBe('HTTP/1.1 200 OK');
    }
    const newcomer = await open();
    expect(await newcomer.healthz(port)).toBe('HTTP/1.1 200 OK');
    await heldOpen.closed;
    expect(await reused.healthz(port)).toBe('HTTP/1.1 200 OK');
    for (const connection of admitted) expect(await connection.healthz(port)).toBe('HTTP/1.1 200 OK');
  });
});
