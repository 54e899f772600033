/**
 * Backpressure against clients that do not read (corral issue 7): a WebSocket client that sends requests and
 * never reads its answers, and an HTTP client pipelining requests with its reader paused. The server stops
 * reading such a connection once its unsent output passes maxBufferedBytesPerConnection, keeps serving
 * others, and closes the connection when it stays above the bound for slowClientGraceMs.
 */
import { randomBytes } from 'node:crypto';
import { type Socket, connect } from 'node:net';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendAvailable } from '../helpers/backend-gate.js';
import { type LimitsServer, startLimitsServer } from './server-limits-server.js';

const processBackend = await backendAvailable('process');
const BOUND_BYTES = 64 * 1024;
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'greedy', version: '1' } },
};

/** One masked client text frame (RFC 6455 5.2), payloads under 64 KiB. */
function textFrame(text: string): Buffer {
  const payload = Buffer.from(text, 'utf8');
  const mask = randomBytes(4);
  const header =
    payload.length < 126 ? Buffer.from([0x81, 0x80 | payload.length]) : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 0xff]);
  const masked = Buffer.from(payload.map((byte, index) => byte ^ mask[index % 4]!));
  return Buffer.concat([header, mask, masked]);
}

function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => resolve(socket));
    socket.on('error', reject);
  });
}

/** Writes `next()` chunks as fast as the server accepts them until the socket closes; resolves the bytes written. */
async function floodUntilClosed(socket: Socket, next: () => Buffer): Promise<number> {
  let written = 0;
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  let open = true;
  void closed.then(() => (open = false));
  while (open) {
    const chunk = next();
    written += chunk.length;
    if (!socket.write(chunk)) await Promise.race([new Promise((resolve) => socket.once('drain', resolve)), closed]);
  }
  return written;
}

/** Samples the largest unsent output of a server-side socket until it closes. */
function sampleBuffered(socket: Socket): { max: () => number; stop: () => void } {
  let max = 0;
  const timer = setInterval(() => (max = Math.max(max, socket.writableLength)), 2);
  return { max: () => max, stop: () => clearInterval(timer) };
}

describe.skipIf(!processBackend)('server limits: backpressure', () => {
  let server: LimitsServer;

  beforeAll(async () => {
    server = await startLimitsServer({ maxBufferedBytesPerConnection: BOUND_BYTES, slowClientGraceMs: 500 });
  });
  afterAll(async () => server?.close());

  async function serverSocketOf(client: Socket): Promise<Socket> {
    await expect.poll(() => server.serverSockets.some((socket) => socket.remotePort === client.localPort)).toBe(true);
    return server.serverSockets.find((socket) => socket.remotePort === client.localPort)!;
  }

  it('stops reading a WebSocket client that never reads, serves another client meanwhile, then closes the greedy one', async () => {
    const greedy = await openSocket(server.port);
    greedy.on('error', () => undefined);
    greedy.write(
      `GET /ws/python HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    );
    const serverSide = await serverSocketOf(greedy);
    // Never read from here on: the handshake answer and every reply stay unread.
    greedy.pause();
    greedy.write(textFrame(JSON.stringify(INITIALIZE)));
    greedy.write(textFrame(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })));
    const buffered = sampleBuffered(serverSide);
    // Pings are cheap to answer; a long id makes each answer ~2 KiB, so unread answers pile up fast.
    let id = 1;
    const ping = () => textFrame(JSON.stringify({ jsonrpc: '2.0', id: `${id++}-${'x'.repeat(2000)}`, method: 'ping' }));
    const flooding = floodUntilClosed(greedy, () => Buffer.concat(Array.from({ length: 20 }, ping)));

    // Another client is served while the greedy one is stalled.
    const other = new WebSocket(`ws://127.0.0.1:${server.port}/ws/python`);
    other.on('error', () => undefined);
    await new Promise((resolve) => other.once('open', resolve));
    const answers: unknown[] = [];
    other.on('message', (data: Buffer) => answers.push(JSON.parse(data.toString('utf8'))));
    other.send(JSON.stringify(INITIALIZE));
    await expect.poll(() => answers.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
    other.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    other.send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }));
    await expect.poll(() => answers.some((answer) => (answer as { id?: number }).id === 7), { timeout: 10_000 }).toBe(true);
    other.close();

    const written = await flooding;
    buffered.stop();
    expect(serverSide.destroyed).toBe(true);
    // Reading stopped at the bound: what overshoots it is the answers to one socket read (64 KiB) of pings,
    // each answer about the size of its ping. Without the bound the unread answers grow without limit.
    expect(buffered.max()).toBeLessThan(BOUND_BYTES + 128 * 1024);
    expect(serverSide.bytesRead).toBeLessThan(written);
  });

  it('stops reading pipelined HTTP requests while the client reads nothing, then closes the connection', async () => {
    const greedy = await openSocket(server.port);
    greedy.on('error', () => undefined);
    const serverSide = await serverSocketOf(greedy);
    greedy.pause();
    const buffered = sampleBuffered(serverSide);
    const request = Buffer.from(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n\r\n`.repeat(100));
    const written = await floodUntilClosed(greedy, () => request);
    buffered.stop();
    expect(serverSide.destroyed).toBe(true);
    // The server stopped reading requests it could not answer, and its socket buffer stayed under the bound.
    expect(serverSide.bytesRead).toBeLessThan(written);
    expect(buffered.max()).toBeLessThanOrEqual(BOUND_BYTES);
  });
});
