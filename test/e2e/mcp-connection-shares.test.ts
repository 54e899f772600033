/**
 * Connection caps from the descriptor limit, and a share one address can never take (issue 21). `corral serve`
 * runs as a real child process under `ulimit -n 400`; it logs the caps it derived. More body-trickling connections
 * than its per-address cap come from 127.0.0.1 (each busy: a request whose body never finishes); the excess gets a
 * typed 503. Then a client from another address, 127.0.0.2, is still served, and a fresh one from 127.0.0.1 gets the
 * typed 503 rather than a dropped connection.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { type Socket, connect } from 'node:net';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendAvailable } from '../helpers/backend-gate.js';

const processBackend = await backendAvailable('process');
const CLI = resolve(import.meta.dirname, '../../bin/corral.mjs');
const DESCRIPTOR_LIMIT = 400;

interface Caps {
  maxConnections: number;
  maxConnectionsPerAddress: number;
  descriptorLimit: number;
}

/** One request from `localAddress` on a fresh connection: its status and body, or the socket error. */
function requestFrom(port: number, localAddress: string, options: { method?: string; path: string; headers?: Record<string, string>; body?: string }) {
  return new Promise<{ status: number; body: string } | { error: string }>((resolveReply) => {
    const request = httpRequest(
      { host: '127.0.0.1', port, localAddress, agent: false, method: options.method ?? 'GET', path: options.path, headers: options.headers ?? {} },
      (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolveReply({ status: response.statusCode ?? 0, body }));
      },
    );
    request.on('error', (error) => resolveReply({ error: error.message }));
    request.end(options.body);
  });
}

/** Opens one body-trickling request from 127.0.0.1: 'busy' once the server holds it in flight, or 'refused' (503), or 'closed'. */
function floodConnection(port: number, held: Socket[]): Promise<string> {
  return new Promise((resolveOutcome) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress: '127.0.0.1' });
    held.push(socket);
    socket.on('error', () => undefined);
    socket.once('data', (chunk: Buffer) =>
      resolveOutcome(/^HTTP\/1\.1 100 /.test(chunk.toString()) ? 'busy' : /^HTTP\/1\.1 503 /.test(chunk.toString()) ? 'refused' : 'other'),
    );
    socket.once('close', () => resolveOutcome('closed'));
    socket.write(
      `POST /mcp/python HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 100000\r\n\r\n`,
    );
  });
}

describe.runIf(processBackend)('connection shares under a low descriptor limit', () => {
  let child: ChildProcess;
  let stderr = '';
  let port = 0;
  const flood: Socket[] = [];

  beforeAll(async () => {
    const command = `ulimit -n ${DESCRIPTOR_LIMIT} && exec "${process.execPath}" "${CLI}" serve --backend process --host 127.0.0.1 --port 0`;
    child = spawn('bash', ['-c', command], { env: { ...process.env, CORRAL_MIN_IDLE: '0', CORRAL_LOG_LEVEL: 'info' }, stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    port = await new Promise<number>((resolvePort, reject) => {
      child.stderr!.on('data', () => {
        const listening = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr);
        if (listening) resolvePort(Number(listening[1]));
      });
      child.once('exit', (code) => reject(new Error(`corral serve exited (${code}): ${stderr}`)));
    });
  });
  afterAll(() => {
    for (const socket of flood) socket.destroy();
    child?.kill('SIGKILL');
  });

  it('derives its caps from the descriptor limit, and one address cannot take the share of another', async () => {
    const capsLine = stderr.split('\n').find((line) => line.includes('"connectionCaps"'));
    expect(capsLine).toBeDefined();
    const caps = (JSON.parse(capsLine!) as { connectionCaps: Caps }).connectionCaps;
    expect(caps.descriptorLimit).toBe(DESCRIPTOR_LIMIT);
    expect(caps.maxConnections).toBeLessThan(DESCRIPTOR_LIMIT);
    expect(caps.maxConnectionsPerAddress).toBeLessThan(caps.maxConnections);

    // More busy connections from 127.0.0.1 than that address may hold, one after the other: each sends its headers
    // with Expect: 100-continue, so the server's "100 Continue" says the request is in flight (busy) before the next.
    const floodSize = caps.maxConnectionsPerAddress + 40;
    const outcomes: string[] = [];
    for (let index = 0; index < floodSize; index++) outcomes.push(await floodConnection(port, flood));
    expect(outcomes.filter((outcome) => outcome === 'busy')).toHaveLength(caps.maxConnectionsPerAddress);
    expect(outcomes.filter((outcome) => outcome === 'refused')).toHaveLength(40);

    expect(await requestFrom(port, '127.0.0.2', { path: '/healthz' })).toMatchObject({ status: 200 });
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'shares', version: '1' } },
    });
    const served = await requestFrom(port, '127.0.0.2', {
      method: 'POST',
      path: '/mcp/python',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: initialize,
    });
    expect(served).toMatchObject({ status: 200, body: expect.stringContaining('"protocolVersion":"2025-11-25"') });
    // The address that holds its whole share gets a typed refusal, not a dropped connection.
    expect(await requestFrom(port, '127.0.0.1', { path: '/healthz' })).toMatchObject({ status: 503, body: expect.stringContaining('"jsonrpc":"2.0"') });
  });
});
