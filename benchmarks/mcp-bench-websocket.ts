/**
 * mcp.ws.calls_per_s: the trivial tool over corral's WebSocket endpoint, a few connections each keeping many
 * calls in flight (how a trainer multiplexes rollouts over one socket). The load generator is a child process.
 */
import type { Figure } from './figure.js';
import type { CorralBenchServer } from './mcp-bench-server.js';
import { median } from './measure.js';
import { ChildWorker } from './load/child-worker.js';
import { TRIVIAL_TOOL } from './load/trivial-tool.js';
import type { LoadResult, WebSocketLoadRequest } from './load/load-types.js';

export interface WebSocketThroughputOptions {
  connections: number;
  inflightPerConnection: number;
  rounds: number;
  roundMs: number;
  log: (line: string) => void;
}

export async function webSocketThroughputFigures(corral: CorralBenchServer, options: WebSocketThroughputOptions): Promise<Figure[]> {
  const { worker } = await ChildWorker.start('./websocket-load-worker.ts');
  const rates: number[] = [];
  let errors = 0;
  const request = (durationMs: number): WebSocketLoadRequest => ({
    url: `${corral.origin.replace(/^http/, 'ws')}/ws/wiki`,
    connections: options.connections,
    inflight: options.inflightPerConnection,
    toolName: TRIVIAL_TOOL.name,
    toolArguments: { ...TRIVIAL_TOOL.arguments },
    warmupMs: 500,
    durationMs,
  });
  try {
    // Untimed first pass: the first seconds under load are mostly JIT compilation.
    await worker.request<LoadResult>(request(2000));
    for (let roundIndex = 0; roundIndex < options.rounds; roundIndex++) {
      const result = await worker.request<LoadResult>(request(options.roundMs));
      rates.push(result.calls / result.seconds);
      errors += result.errors;
      if (result.firstError) options.log(`ws: ${result.errors} errors, first: ${result.firstError}`);
      options.log(`ws round ${roundIndex + 1}/${options.rounds}: ${Math.round(result.calls / result.seconds)} calls/s`);
    }
  } finally {
    await worker.stop();
  }
  return [
    {
      name: 'mcp.ws.calls_per_s',
      value: Math.round(median(rates)),
      unit: 'calls/s',
      target: `>= 15000 (${options.connections} connections x ${options.inflightPerConnection} in flight)`,
    },
    { name: 'mcp.ws.errors', value: errors, unit: 'errors', target: '0' },
  ];
}
