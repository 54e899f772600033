/**
 * `corral bench mcp`: throughput of the MCP layer over Streamable HTTP (against the SDK-example peer and a bare
 * fastify ceiling, interleaved in the same run) and over WebSocket, python round trips with and without MCP, and
 * memory per idle session (against the SDK-example peer). Load generators run in child processes.
 */
import type { Figure } from './figure.js';
import { httpThroughputFigures } from './mcp-bench-http.js';
import { pythonRoundTripFigures } from './mcp-bench-python.js';
import { startCorralBenchServer } from './mcp-bench-server.js';
import { sessionMemoryFigures } from './mcp-bench-sessions.js';
import { webSocketThroughputFigures } from './mcp-bench-websocket.js';

export const MCP_BENCH_PARTS = ['http', 'ws', 'python', 'sessions'] as const;
export type McpBenchPart = (typeof MCP_BENCH_PARTS)[number];

export interface McpBenchOptions {
  parts: readonly McpBenchPart[];
  backend: 'process' | 'docker';
  image?: string;
  /** Closed-loop HTTP clients (default 32). */
  clients: number;
  /** Interleaved rounds per throughput figure (default 3). */
  rounds: number;
  /** Measured milliseconds per round and target (default 3000). */
  roundMs: number;
  wsConnections: number;
  wsInflight: number;
  /** Idle sessions held for the memory figure (default 2000). */
  sessions: number;
  log: (line: string) => void;
}

export async function runMcpBench(options: McpBenchOptions): Promise<Figure[]> {
  const wanted = (part: McpBenchPart) => options.parts.includes(part);
  const figures: Figure[] = [];
  const corral = await startCorralBenchServer({ backend: options.backend, ...(options.image ? { image: options.image } : {}) });
  try {
    if (wanted('http')) {
      options.log(`http: ${options.clients} clients, ${options.rounds} interleaved rounds of ${options.roundMs} ms per server`);
      figures.push(...(await httpThroughputFigures(corral, { clients: options.clients, rounds: options.rounds, roundMs: options.roundMs, log: options.log })));
    }
    if (wanted('ws')) {
      options.log(`ws: ${options.wsConnections} connections x ${options.wsInflight} calls in flight`);
      figures.push(
        ...(await webSocketThroughputFigures(corral, {
          connections: options.wsConnections,
          inflightPerConnection: options.wsInflight,
          rounds: options.rounds,
          roundMs: options.roundMs,
          log: options.log,
        })),
      );
    }
    if (wanted('python')) {
      options.log(`python: round trips on the ${options.backend} backend`);
      figures.push(...(await pythonRoundTripFigures(corral, options.log)));
    }
  } finally {
    await corral.close();
  }
  // Last, and in child processes of their own: the memory figure must not see the throughput runs' garbage.
  if (wanted('sessions')) {
    options.log(`sessions: ${options.sessions} idle sessions per server`);
    figures.push(...(await sessionMemoryFigures(options.sessions, options.log)));
  }
  return figures;
}
