/**
 * Child process: the WebSocket load generator for `corral bench mcp`. Each connection initializes one MCP
 * session and then keeps `inflight` tools/call requests outstanding, sending the next as each reply arrives, as
 * a trainer multiplexing many rollouts over one socket would. Raw JSON-RPC text frames over `ws`.
 */
import WebSocket from 'ws';
import { serveWorkerRequests } from './child-worker.js';
import type { LoadResult, WebSocketLoadRequest } from './load-types.js';
import { INITIALIZED_NOTIFICATION, type JsonRpcReply, initializeMessage, isSuccessfulCall, toolCallMessage } from './mcp-wire.js';

function connect(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { perMessageDeflate: false });
    socket.once('open', () => resolve(socket));
    socket.once('unexpected-response', (_request, response) => reject(new Error(`WebSocket refused: HTTP ${response.statusCode}`)));
    socket.once('error', reject);
  });
}

async function initialize(socket: WebSocket): Promise<void> {
  const reply = await new Promise<JsonRpcReply>((resolve) => {
    socket.once('message', (data) => resolve(JSON.parse(String(data)) as JsonRpcReply));
    socket.send(initializeMessage(0));
  });
  if (!reply.result) throw new Error(`initialize over WebSocket failed: ${JSON.stringify(reply).slice(0, 300)}`);
  socket.send(INITIALIZED_NOTIFICATION);
}

async function runWebSocketLoad(request: WebSocketLoadRequest): Promise<LoadResult> {
  const sockets = await Promise.all(Array.from({ length: request.connections }, () => connect(request.url)));
  try {
    await Promise.all(sockets.map(initialize));
    const result: LoadResult = { calls: 0, errors: 0, seconds: request.durationMs / 1000 };
    const measureFrom = performance.now() + request.warmupMs;
    const endAt = measureFrom + request.durationMs;
    let nextId = 1;
    await Promise.all(
      sockets.map(
        (socket) =>
          new Promise<void>((resolve, reject) => {
            let outstanding = 0;
            const send = () => {
              outstanding++;
              socket.send(toolCallMessage(nextId++, request.toolName, request.toolArguments));
            };
            socket.on('message', (data) => {
              outstanding--;
              const reply = JSON.parse(String(data)) as JsonRpcReply;
              const finishedAt = performance.now();
              if (finishedAt >= measureFrom && finishedAt <= endAt) {
                if (isSuccessfulCall(reply)) result.calls++;
                else {
                  result.errors++;
                  result.firstError ??= JSON.stringify(reply).slice(0, 300);
                }
              }
              if (finishedAt < endAt) send();
              else if (outstanding === 0) resolve();
            });
            socket.once('close', () => (outstanding > 0 ? reject(new Error('the server closed the WebSocket mid-run')) : resolve()));
            for (let index = 0; index < request.inflight; index++) send();
          }),
      ),
    );
    return result;
  } finally {
    for (const socket of sockets) socket.close();
  }
}

serveWorkerRequests(async (message) => ({ ...(await runWebSocketLoad(message as unknown as WebSocketLoadRequest)) }));
process.send?.({ ready: true });
