/**
 * Connection limits against floods and slow clients (corral issue 7): idle-socket floods from one address
 * cannot lock fresh clients out, silent sockets are closed, body tricklers are cut by the request timeout,
 * a refused request's body is never read, and a 414 carries a JSON-RPC body like every other refusal.
 */
import { type Socket, connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendAvailable } from '../helpers/backend-gate.js';
import { rawHttp } from '../helpers/raw-http.js';
import { type LimitsServer, startLimitsServer } from './server-limits-server.js';

const processBackend = await backendAvailable('process');
const TOKEN = 'limits-test-token';
const MAX_CONNECTIONS = 12;
const MAX_PER_ADDRESS = 8;

function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => resolve(socket));
    socket.on('error', reject);
  });
}

/** Resolves once the peer closed the socket (end, reset or close), with what it sent. */
function closedByServer(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
    socket.on('error', () => undefined);
    socket.once('close', () => resolve(received));
  });
}

const healthz = (port: number) => rawHttp(port, { path: '/healthz', headers: { host: `127.0.0.1:${port}` } });

describe.skipIf(!processBackend)('server limits: connections', () => {
  let server: LimitsServer;

  beforeAll(async () => {
    server = await startLimitsServer({
      token: TOKEN,
      maxConnections: MAX_CONNECTIONS,
      maxConnectionsPerAddress: MAX_PER_ADDRESS,
      firstRequestTimeoutMs: 60_000,
      requestTimeoutMs: 800,
    });
  });
  afterAll(async () => server?.close());

  it('keeps serving fresh clients and /healthz while 40 idle sockets are held from the same address, by evicting the oldest idle ones', async () => {
    const held = await Promise.all(Array.from({ length: 40 }, () => openSocket(server.port)));
    const closes = held.map((socket) => closedByServer(socket));
    // A socket that has sent no request is spared for a grace (its first request may be in transit): wait it out.
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    // Fresh clients come from 127.0.0.1 too: the per-address cap makes room by closing that address's oldest idle socket.
    const answers = await Promise.all(Array.from({ length: 5 }, () => healthz(server.port)));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    const authorized = await rawHttp(server.port, {
      method: 'POST',
      path: '/v1/sandboxes',
      headers: { host: `127.0.0.1:${server.port}`, authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: '{"env":"python"}',
    });
    expect(authorized.status).toBe(201);
    // The oldest held sockets were the ones closed, and the server never held more than its caps allow.
    await closes[0];
    await closes[held.length - MAX_PER_ADDRESS - 1];
    expect(await new Promise<number>((resolve) => server.app.server.getConnections((_error, count) => resolve(count)))).toBeLessThanOrEqual(MAX_PER_ADDRESS);
    for (const socket of held) socket.destroy();
  });

  it('closes a connection that sends nothing within firstRequestTimeoutMs', async () => {
    const quick = await startLimitsServer({ firstRequestTimeoutMs: 300 });
    try {
      const silent = await openSocket(quick.port);
      expect(await closedByServer(silent)).toBe('');
      expect((await healthz(quick.port)).status).toBe(200);
    } finally {
      await quick.close();
    }
  });

  for (const authenticated of [true, false]) {
    it(`cuts a client trickling a request body, ${authenticated ? 'authenticated, at the request timeout (408)' : 'unauthenticated, right after its 401'}`, async () => {
      const socket = await openSocket(server.port);
      const closed = closedByServer(socket);
      const authorization = authenticated ? `Authorization: Bearer ${TOKEN}\r\n` : 'Authorization: Bearer wrong\r\n';
      socket.write(
        `POST /mcp/python HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n${authorization}Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n{`,
      );
      let sent = 0;
      const trickle = setInterval(() => {
        if (!socket.destroyed) socket.write(' ');
        sent++;
      }, 50);
      const received = await closed;
      clearInterval(trickle);
      // Cut long before the body (100 000 bytes at 20 a second) could have arrived.
      expect(sent).toBeLessThan(100_000);
      if (authenticated) expect(received).toMatch(/^HTTP\/1\.1 408 /);
      else expect(received).toMatch(/^HTTP\/1\.1 401 /);
      expect(received).toContain('"jsonrpc":"2.0"');
    });
  }

  it('answers an unauthenticated request with a large body 401 and closes without reading the body', async () => {
    const socket = await openSocket(server.port);
    const closed = closedByServer(socket);
    const bodyBytes = 64 * 1024 * 1024;
    socket.write(`POST /v1/sandboxes HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Type: application/json\r\nContent-Length: ${bodyBytes}\r\n\r\n`);
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let written = 0;
    let stopped = false;
    void closed.then(() => (stopped = true));
    while (!stopped && written < bodyBytes) {
      written += chunk.length;
      if (!socket.write(chunk)) await Promise.race([new Promise((resolve) => socket.once('drain', resolve)), closed]);
    }
    const received = await closed;
    expect(received).toMatch(/^HTTP\/1\.1 401 /);
    expect(received).toContain('"jsonrpc":"2.0"');
    // The server stopped reading: most of the body was never accepted.
    expect(written).toBeLessThan(bodyBytes / 2);
  });

  it('answers a URI too long (414) with a JSON-RPC error body', async () => {
    const response = await rawHttp(server.port, {
      path: `/mcp/python/${'x'.repeat(500)}`,
      headers: { host: `127.0.0.1:${server.port}`, authorization: `Bearer ${TOKEN}` },
    });
    expect(response.status).toBe(414);
    expect(response.json).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
  });
});
