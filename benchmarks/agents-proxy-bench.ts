/**
 * `corral bench agents` proxy part: what the recording proxy adds to one model call, per dialect. Each sample is a
 * pair, in alternating order: the CLI's request (captured from the real CLI, test/fixtures/model-proxy/) sent
 * through the proxy to the scripted model (streamed when the CLI streams, as the proxy then streams upstream), and
 * the same conversation already in Chat Completions form sent straight to the scripted model the same way (the
 * peer). The overhead is the median of the paired differences: request parsing, translation both ways, the event
 * stream and the record, on the same client, server and machine.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { Agent, request } from 'undici';
import { DIALECTS } from '../src/model-proxy/dialects.js';
import type { DialectName } from '../src/model-proxy/dialect.js';
import { startModelProxy } from '../src/model-proxy/model-proxy.js';
import { startScriptedModelServer } from '../src/testing/scripted-model-server.js';
import { type Figure, percentile, round } from './figure.js';
import { median } from './measure.js';

const FIXTURES: Record<DialectName, string> = { chat: 'opencode', responses: 'codex', anthropic: 'claude-code', gemini: 'gemini-cli' };

export interface ProxyBenchOptions {
  /** Measured pairs per dialect (after `warmup` untimed pairs). */
  samples: number;
  warmup: number;
  log: (line: string) => void;
}

export async function proxyOverheadFigures(options: ProxyBenchOptions): Promise<Figure[]> {
  const tokens = { promptTokenIds: Array.from({ length: 64 }, (_, index) => index), completionTokenIds: [1, 2, 3, 4], logprobs: [-0.1, -0.2, -0.3, -0.4] };
  const model = await startScriptedModelServer(
    (body) => {
      const tool = body.tools?.[0]?.function.name;
      return tool
        ? { kind: 'tool-calls', content: 'Running.', toolCalls: [{ name: tool, arguments: { command: 'ls' } }], tokens }
        : { kind: 'text', content: 'ok', tokens };
    },
    { recordRequests: false },
  );
  const proxy = await startModelProxy({
    upstream: { baseURL: model.baseURL, model: 'bench' },
    forcedArgs: { temperature: 1, logprobs: true, return_token_ids: true },
    listen: { port: 0 },
    // One rollout per dialect makes every paired call (warm-up + samples + CPU calls): --proxy-samples may pass the default bound.
    maxCallsPerRollout: Number.MAX_SAFE_INTEGER,
  });
  const client = new Agent({ keepAliveTimeout: 30_000, connections: 4 });
  const figures: Figure[] = [];
  try {
    for (const dialect of Object.keys(FIXTURES) as DialectName[]) {
      const rollout = await proxy.openRollout({ rolloutId: `bench-${dialect}` });
      const captured = JSON.parse(readFileSync(new URL(`../test/fixtures/model-proxy/${FIXTURES[dialect]}-request.json`, import.meta.url), 'utf8')) as {
        url: string;
        body: Record<string, unknown>;
      };
      const translated = DIALECTS[dialect].translateRequest(captured.body, {
        pathModel: 'bench',
        streamRoute: captured.url.includes('streamGenerateContent'),
        query: new URL(captured.url, 'http://proxy').searchParams,
      });
      const proxyBody = JSON.stringify(captured.body);
      // The peer asks as the proxy does: a stream (with its usage) when the CLI streams, read to its end.
      const streamOptions = translated.stream ? { stream_options: { include_usage: true } } : {};
      const sampling = { temperature: 1, logprobs: true, return_token_ids: true };
      const directBody = JSON.stringify({ ...translated.chat, ...sampling, model: 'bench', stream: translated.stream, ...streamOptions });
      const viaProxy = () => post(client, `${proxy.origin}${captured.url}`, proxyBody, headersFor(dialect, rollout.apiKey));
      const direct = () => post(client, `${model.baseURL}/chat/completions`, directBody, { authorization: 'Bearer EMPTY' });
      for (let index = 0; index < options.warmup; index++) {
        await viaProxy();
        await direct();
      }
      const proxied: number[] = [];
      const straight: number[] = [];
      const overhead: number[] = [];
      for (let index = 0; index < options.samples; index++) {
        // Alternate which goes first, so neither always meets a warmer connection or a fresher heap.
        const order = index % 2 === 0 ? [viaProxy, direct] : [direct, viaProxy];
        const times: number[] = [];
        for (const call of order) {
          const startedAt = performance.now();
          await call();
          times.push(performance.now() - startedAt);
        }
        const [proxyMs, directMs] = index % 2 === 0 ? [times[0]!, times[1]!] : [times[1]!, times[0]!];
        proxied.push(proxyMs);
        straight.push(directMs);
        overhead.push(proxyMs - directMs);
      }
      // CPU time is not stretched by waiting for a busy core the way latency is: the same calls again, in blocks.
      const cpu = { proxy: 0, direct: 0 };
      for (let block = 0; block < 10; block++) {
        for (const [side, call] of [
          ['proxy', viaProxy],
          ['direct', direct],
        ] as const) {
          const before = process.cpuUsage();
          for (let index = 0; index < Math.ceil(options.samples / 10); index++) await call();
          const used = process.cpuUsage(before);
          cpu[side] += (used.user + used.system) / 1000;
        }
      }
      const cpuCalls = 10 * Math.ceil(options.samples / 10);
      const recorded = rollout.calls.filter((call) => call.error === null && call.tokens !== null).length;
      await rollout.close();
      if (recorded !== options.warmup + options.samples + cpuCalls)
        throw new Error(`proxy bench: ${dialect} recorded ${recorded} good calls, expected ${options.warmup + options.samples + cpuCalls}`);
      const overheadP50 = median(overhead);
      options.log(
        `${dialect} (${FIXTURES[dialect]} request, ${Math.round(proxyBody.length / 1024)} KiB): proxy p50 ${round(median(proxied))} ms, direct p50 ${round(median(straight))} ms, overhead p50 ${round(overheadP50)} ms, proxy CPU ${round((cpu.proxy - cpu.direct) / cpuCalls)} ms/call (load average ${loadavg()[0]!.toFixed(1)})`,
      );
      figures.push(
        { name: `agents.proxy.overhead.p50.${dialect}`, value: round(overheadP50), unit: 'ms', target: '<= 2' },
        { name: `agents.proxy.overhead.p90.${dialect}`, value: round(percentile(overhead, 90)), unit: 'ms' },
        // Client, proxy and scripted model share this process: the difference is the CPU the proxy adds per call.
        { name: `agents.proxy.cpu_per_call.${dialect}`, value: round((cpu.proxy - cpu.direct) / cpuCalls), unit: 'ms' },
        {
          name: `agents.proxy.call.p50.${dialect}`,
          value: round(median(proxied)),
          unit: 'ms',
          peer: 'same conversation straight to the endpoint',
          peerValue: round(median(straight)),
          ratio: round(median(straight) / median(proxied), 3),
        },
      );
    }
  } finally {
    await client.close();
    await proxy.close();
    await model.close();
  }
  return figures;
}

function headersFor(dialect: DialectName, key: string): Record<string, string> {
  if (dialect === 'anthropic') return { 'x-api-key': key, 'anthropic-version': '2023-06-01' };
  if (dialect === 'gemini') return { 'x-goog-api-key': key };
  return { authorization: `Bearer ${key}` };
}

async function post(client: Agent, url: string, body: string, headers: Record<string, string>): Promise<void> {
  const response = await request(url, { method: 'POST', body, headers: { ...headers, 'content-type': 'application/json' }, dispatcher: client });
  await response.body.text();
  if (response.statusCode !== 200) throw new Error(`proxy bench: ${url} answered ${response.statusCode}`);
}
