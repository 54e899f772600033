// The vLLM /metrics reader against a real HTTP server on port 0.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { LoadSignal } from '../../src/runner/run/admission/load-signals.js';
import { parseVllmMetrics, watchServerLoad } from '../../src/runner/run/admission/server-load-watch.js';

const VLLM_METRICS = `# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="qwen"} 40.0
vllm:num_requests_running{engine="1",model_name="qwen"} 24.0
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",model_name="qwen"} 7.0
vllm:num_requests_waiting{engine="1",model_name="qwen"} 0.0
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0",model_name="qwen"} 0.62
vllm:kv_cache_usage_perc{engine="1",model_name="qwen"} 0.97
`;

let server: Server | undefined;
afterEach(async () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

async function serve(status: number, body: string): Promise<{ url: URL; hits: () => number }> {
  let hits = 0;
  server = createServer((_request, response) => {
    hits++;
    response.writeHead(status, { 'content-type': 'text/plain' }).end(body);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`), hits: () => hits };
}

const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
};

describe('the model server load watch', () => {
  it("sums vLLM's request gauges over engines and keeps the fullest KV cache", () => {
    expect(parseVllmMetrics(VLLM_METRICS)).toEqual({ running: 64, waiting: 7, kvCacheUsage: 0.97 });
    expect(parseVllmMetrics('vllm:num_requests_running 3\nvllm:num_requests_waiting 0\nvllm:gpu_cache_usage_perc 0.4\n')).toEqual({
      running: 3,
      waiting: 0,
      kvCacheUsage: 0.4,
    });
    expect(parseVllmMetrics('process_cpu_seconds_total 12\n')).toBeUndefined();
  });

  it('reports what a vLLM server serves at /metrics to the controller', async () => {
    const { url } = await serve(200, VLLM_METRICS);
    const signals: LoadSignal[] = [];
    const stop = watchServerLoad(url, { observe: (signal) => signals.push(signal) }, { intervalMs: 10 });
    await until(() => signals.length >= 2);
    stop();
    expect(signals[0]).toEqual({ kind: 'server-load', running: 64, waiting: 7, kvCacheUsage: 0.97 });
  });

  it('leaves an endpoint without /metrics alone after two tries', async () => {
    const { url, hits } = await serve(404, '{"detail":"Not Found"}');
    const stop = watchServerLoad(url, { observe: () => expect.unreachable() }, { intervalMs: 5 });
    await until(() => hits() >= 2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    stop();
    expect(hits()).toBe(2);
  });
});
