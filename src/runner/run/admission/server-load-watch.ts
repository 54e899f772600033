/**
 * Reads a model server's own load while a run goes: vLLM's Prometheus /metrics (requests running and waiting,
 * KV-cache usage) every few seconds, reported to the admission controller as `server-load` signals. A server that
 * does not serve them (OpenAI, a proxy: 404, not Prometheus text, unreachable) is asked twice, then left alone.
 */
import type { LoadObserver } from './load-signals.js';

export interface ServerLoadReading {
  running: number;
  waiting: number;
  kvCacheUsage?: number;
}

const POLL_MS = 2_000;
const REQUEST_TIMEOUT_MS = 1_500;
/** Failures in a row before the watch gives up on an endpoint. */
const GIVE_UP_AFTER = 2;

/** Starts the watch; returns the stop. */
export function watchServerLoad(url: URL, observer: LoadObserver, options: { intervalMs?: number } = {}): () => void {
  let failures = 0;
  let stopped = false;
  const poll = async () => {
    const reading = await readServerLoad(url).catch(() => undefined);
    if (stopped) return;
    if (!reading) {
      if (++failures >= GIVE_UP_AFTER) stop();
      return;
    }
    failures = 0;
    observer.observe({ kind: 'server-load', ...reading });
  };
  const timer = setInterval(() => void poll(), options.intervalMs ?? POLL_MS);
  timer.unref();
  const stop = () => {
    stopped = true;
    clearInterval(timer);
  };
  return stop;
}

/** One read of /metrics; undefined when the answer holds no vLLM request gauges. */
export async function readServerLoad(url: URL): Promise<ServerLoadReading | undefined> {
  const response = await fetch(url, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  if (!response.ok) return undefined;
  return parseVllmMetrics(await response.text());
}

/**
 * Sums vLLM's gauges over their label sets (one per model or engine): num_requests_running, num_requests_waiting,
 * and kv_cache_usage_perc (gpu_cache_usage_perc before vLLM 0.10), a fraction 0..1 despite its name; the highest
 * usage of any engine is the one that matters.
 */
export function parseVllmMetrics(text: string): ServerLoadReading | undefined {
  let running: number | undefined;
  let waiting: number | undefined;
  let kvCacheUsage: number | undefined;
  for (const line of text.split('\n')) {
    const match = /^vllm:(num_requests_running|num_requests_waiting|kv_cache_usage_perc|gpu_cache_usage_perc)(?:\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const value = Number(match[2]);
    if (!Number.isFinite(value)) continue;
    if (match[1] === 'num_requests_running') running = (running ?? 0) + value;
    else if (match[1] === 'num_requests_waiting') waiting = (waiting ?? 0) + value;
    else kvCacheUsage = Math.max(kvCacheUsage ?? 0, value);
  }
  if (running === undefined || waiting === undefined) return undefined;
  return { running, waiting, ...(kvCacheUsage === undefined ? {} : { kvCacheUsage }) };
}
