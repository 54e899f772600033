/**
 * mcp.http.calls_per_s: the trivial tool called by N closed-loop clients over Streamable HTTP (2025-era
 * sessions, one call in flight each) against corral, the SDK-example peer and the bare fastify ceiling. The
 * three servers live in this process; the load generator is a child process. Rounds interleave the targets
 * (rotating which goes first) so noise from other work on the machine lands on all three alike.
 */
import { searchPagesTool } from '../src/tools/wiki/search-pages-tool.js';
import { type Figure, round } from './figure.js';
import type { CorralBenchServer } from './mcp-bench-server.js';
import { median } from './measure.js';
import { ChildWorker } from './load/child-worker.js';
import type { HttpLoadRequest, HttpLoadTarget, LoadResult } from './load/load-types.js';
import { smallWikiIndex } from '../src/testing/small-wiki-index.js';
import { TRIVIAL_TOOL } from './load/trivial-tool.js';
import { ECHO_PATH, startFastifyEchoServer } from './peers/fastify-echo-server.js';
import { SDK_EXAMPLE_PATH, startSdkExampleServer } from './peers/sdk-example-server.js';

export interface HttpThroughputOptions {
  clients: number;
  rounds: number;
  /** Measured time per round and target; a fixed warm-up precedes it. */
  roundMs: number;
  log: (line: string) => void;
}

const WARMUP_MS = 500;
/** One untimed pass per server first: the first seconds under load are mostly JIT compilation. */
const FIRST_PASS_MS = 2000;

export async function httpThroughputFigures(corral: CorralBenchServer, options: HttpThroughputOptions): Promise<Figure[]> {
  const sdkPeer = await startSdkExampleServer(searchPagesTool(smallWikiIndex()));
  const ceiling = await startFastifyEchoServer();
  const { worker } = await ChildWorker.start('./http-load-worker.ts');
  const tool = { toolName: TRIVIAL_TOOL.name, toolArguments: { ...TRIVIAL_TOOL.arguments } };
  const targets: { key: 'corral' | 'sdk' | 'ceiling'; target: HttpLoadTarget }[] = [
    { key: 'corral', target: { origin: corral.origin, path: '/mcp/wiki', kind: 'mcp-session', ...tool } },
    { key: 'sdk', target: { origin: sdkPeer.origin, path: SDK_EXAMPLE_PATH, kind: 'mcp-session', ...tool } },
    { key: 'ceiling', target: { origin: ceiling.origin, path: ECHO_PATH, kind: 'json', ...tool } },
  ];
  const rates: Record<string, number[]> = { corral: [], sdk: [], ceiling: [] };
  const errors: Record<string, number> = { corral: 0, sdk: 0, ceiling: 0 };
  // CPU time of this process (where all three servers live, only the loaded one busy) per call: steadier than
  // calls/s when other work on the machine takes cores away.
  const cpuMicrosPerCall: Record<string, number[]> = { corral: [], sdk: [], ceiling: [] };
  try {
    for (const { target } of targets) await worker.request<LoadResult>({ target, clients: options.clients, warmupMs: 0, durationMs: FIRST_PASS_MS });
    for (let roundIndex = 0; roundIndex < options.rounds; roundIndex++) {
      const order = targets.map((_, position) => targets[(position + roundIndex) % targets.length]!);
      for (const { key, target } of order) {
        const request: HttpLoadRequest = { target, clients: options.clients, warmupMs: WARMUP_MS, durationMs: options.roundMs };
        const cpuBefore = process.cpuUsage();
        const result = await worker.request<LoadResult>(request);
        const cpu = process.cpuUsage(cpuBefore);
        // The window includes the 500 ms warm-up, whose calls are not counted: scale the CPU to the measured part.
        cpuMicrosPerCall[key]!.push(((cpu.user + cpu.system) * (request.durationMs / (request.durationMs + request.warmupMs))) / Math.max(1, result.calls));
        rates[key]!.push(result.calls / result.seconds);
        errors[key]! += result.errors;
        if (result.firstError) options.log(`http ${key}: ${result.errors} errors, first: ${result.firstError}`);
        options.log(`http round ${roundIndex + 1}/${options.rounds} ${key}: ${Math.round(result.calls / result.seconds)} calls/s`);
      }
    }
  } finally {
    await worker.stop();
    await sdkPeer.close();
    await ceiling.close();
  }
  const ours = median(rates.corral!);
  const sdk = median(rates.sdk!);
  const echo = median(rates.ceiling!);
  const oursCpu = median(cpuMicrosPerCall.corral!);
  const sdkCpu = median(cpuMicrosPerCall.sdk!);
  return [
    {
      name: 'mcp.http.calls_per_s',
      value: Math.round(ours),
      unit: 'calls/s',
      peer: 'SDK example server (node:http)',
      peerValue: Math.round(sdk),
      ratio: round(ours / sdk, 2),
      target: '>= 5000',
    },
    {
      name: 'mcp.http.calls_per_s.vs_ceiling',
      value: Math.round(ours),
      unit: 'calls/s',
      peer: 'fastify JSON echo',
      peerValue: Math.round(echo),
      ratio: round(ours / echo, 2),
    },
    {
      name: 'mcp.http.server_cpu_per_call',
      value: Math.round(oursCpu),
      unit: 'us',
      peer: 'SDK example server (node:http)',
      peerValue: Math.round(sdkCpu),
      ratio: round(sdkCpu / oursCpu, 2),
      target: '<= 200 (what 5000 calls/s on one core needs)',
    },
    { name: 'mcp.http.errors', value: errors.corral!, unit: 'errors', target: '0' },
  ];
}
