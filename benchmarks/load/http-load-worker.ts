/**
 * Child process: the HTTP load generator for `corral bench mcp`. Each simulated client owns one keep-alive
 * connection (an undici Client) and, for MCP targets, one 2025-era session, and keeps exactly one call in flight
 * (a closed loop, like an agent waiting for its tool result). undici because it is the cheapest Node HTTP client
 * per request (llhttp, no per-request object churn of node:http's Agent), has no dependencies, and lets each
 * client carry its own session headers, which autocannon's shared request templates make awkward.
 */
import { Client } from 'undici';
import { serveWorkerRequests } from './child-worker.js';
import type { HttpLoadRequest, LoadResult } from './load-types.js';
import { INITIALIZED_NOTIFICATION, MCP_POST_HEADERS, decodeReply, initializeMessage, isSuccessfulCall, sessionHeaders, toolCallMessage } from './mcp-wire.js';

async function openSession(client: Client, path: string): Promise<string> {
  const response = await client.request({ method: 'POST', path, headers: MCP_POST_HEADERS, body: initializeMessage(0) });
  const body = await response.body.text();
  const sessionId = response.headers['mcp-session-id'];
  if (response.statusCode !== 200 || typeof sessionId !== 'string') throw new Error(`initialize failed: HTTP ${response.statusCode} ${body.slice(0, 200)}`);
  const acknowledged = await client.request({ method: 'POST', path, headers: sessionHeaders(sessionId), body: INITIALIZED_NOTIFICATION });
  await acknowledged.body.dump();
  return sessionId;
}

async function runHttpLoad(request: HttpLoadRequest): Promise<LoadResult> {
  const { target } = request;
  const clients = Array.from({ length: request.clients }, () => new Client(target.origin, { pipelining: 1, keepAliveTimeout: 60_000 }));
  try {
    const headers = await Promise.all(
      clients.map(async (client) =>
        target.kind === 'mcp-session' ? sessionHeaders(await openSession(client, target.path)) : { 'content-type': 'application/json' },
      ),
    );
    const result: LoadResult = { calls: 0, errors: 0, seconds: request.durationMs / 1000 };
    const measureFrom = performance.now() + request.warmupMs;
    const endAt = measureFrom + request.durationMs;
    let nextId = 1;
    await Promise.all(
      clients.map(async (client, index) => {
        while (performance.now() < endAt) {
          const response = await client.request({
            method: 'POST',
            path: target.path,
            headers: headers[index],
            body: toolCallMessage(nextId++, target.toolName, target.toolArguments),
          });
          const body = await response.body.text();
          const ok = response.statusCode === 200 && isSuccessfulCall(decodeReply(body));
          const finishedAt = performance.now();
          if (finishedAt < measureFrom || finishedAt > endAt) continue;
          if (ok) result.calls++;
          else {
            result.errors++;
            result.firstError ??= `HTTP ${response.statusCode} ${body.slice(0, 300)}`;
          }
        }
      }),
    );
    return result;
  } finally {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  }
}

serveWorkerRequests(async (message) => ({ ...(await runHttpLoad(message as unknown as HttpLoadRequest)) }));
process.send?.({ ready: true });
