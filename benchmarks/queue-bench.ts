/**
 * `corral bench queue`: the durable queue (issue 15) on the counting environment (one instant scripted model reply
 * per rollout), every process real: a private redis-server, `corral worker` processes, `corral eval --queue`.
 *
 * - queue.rollouts_per_s.<k>w: rollouts/s with k worker processes, timed at the model server (first to last
 *   request), so process start-up is not counted; peer: the same rollouts by `corral eval` in-process.
 * - queue.rollout.p50 / queue.overhead.p50: one worker at concurrency 1 and `-c 1`, the gap between consecutive
 *   model requests (one rollout's full cycle, the model being instant), vs the same gaps in-process.
 * - queue.recovery.seconds: a worker holding every job in flight is SIGKILLed; the time until results.jsonl holds
 *   every record, finished by the other worker (lease expiry + the rerun).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ScriptedModelServer, startScriptedModelServer } from '../src/testing/scripted-model-server.js';
import { COUNTING_ENVIRONMENT, echoScript, startWorker, waitFor, type WorkerProcess } from '../test/e2e/queue-cluster.js';
import { spawnCorral } from '../test/e2e/runner-cli.js';
import { startRedisServer, type TestRedisServer } from '../test/helpers/redis-server.js';
import { type Figure, percentile, round } from './figure.js';
import { median } from './measure.js';

export const QUEUE_BENCH_PARTS = ['rate', 'overhead', 'recovery'] as const;
export type QueueBenchPart = (typeof QUEUE_BENCH_PARTS)[number];

export interface QueueBenchOptions {
  parts: readonly QueueBenchPart[];
  /** Rollouts per throughput run. */
  rollouts: number;
  /** Worker process counts for the throughput figures. */
  workerCounts: readonly number[];
  /** Jobs each worker runs at once in the throughput runs. */
  workerConcurrency: number;
  /** Timed throughput runs per worker count (median). */
  repeats: number;
  /** Sequential rollouts for the overhead figure. */
  sequentialRollouts: number;
  /** SIGKILL recoveries sampled (median). */
  recoverySamples: number;
  leaseMs: number;
  log: (line: string) => void;
}

/** Longer than any recovery: a stalled request is answered only if nobody killed its worker. */
const STALL_MS = 600_000;

/** True when the load generator shares the cores with the workers it drives (the limit on a small machine). */
export const loadGeneratorBound = () => cpus().length <= 4;

interface Bench {
  redis: TestRedisServer;
  model: ScriptedModelServer;
  scratch: string;
  /** The next this-many model requests stall (until the client goes away); the rest answer at once. */
  stallNext: number;
  runs: number;
}

export async function runQueueBench(options: QueueBenchOptions): Promise<Figure[]> {
  const bench: Bench = {
    redis: await startRedisServer(),
    model: await startScriptedModelServer(
      echoScript(() => (bench.stallNext-- > 0 ? STALL_MS : 0)),
      { recordRequests: true },
    ),
    scratch: mkdtempSync(join(tmpdir(), 'corral-bench-queue-')),
    stallNext: 0,
    runs: 0,
  };
  const figures: Figure[] = [];
  try {
    if (options.parts.includes('rate')) figures.push(...(await rateFigures(bench, options)));
    if (options.parts.includes('overhead')) figures.push(...(await overheadFigures(bench, options)));
    if (options.parts.includes('recovery')) figures.push(await recoveryFigure(bench, options));
  } finally {
    await bench.model.close();
    await bench.redis.close();
    rmSync(bench.scratch, { recursive: true, force: true });
  }
  return figures;
}

/** Runs `corral eval` on the counting environment, queued or in-process; returns the run directory. */
async function evaluate(bench: Bench, options: { rollouts: number; concurrency: number; queue: boolean }): Promise<string> {
  const out = join(bench.scratch, `run-${bench.runs++}`);
  const args = ['eval', COUNTING_ENVIRONMENT, '--model', 'scripted', '--base-url', bench.model.baseURL, '--api-key', 'bench-key'];
  args.push('-n', String(options.rollouts), '-c', String(options.concurrency), '--backend', 'process', '--out', out, '--no-progress');
  if (options.queue) args.push('--queue', bench.redis.url());
  const run = spawnCorral(args, { OPENAI_API_KEY: 'bench-key' });
  const code = await run.exited;
  if (code !== 0) throw new Error(`corral eval exited ${code}: ${run.output.stderr.slice(-2000)}`);
  return out;
}

async function startWorkers(bench: Bench, count: number, concurrency: number, leaseMs: number, tag: string): Promise<WorkerProcess[]> {
  const workers = Array.from({ length: count }, (_, index) =>
    startWorker({ name: `bench-${tag}-${index}`, redisUrl: bench.redis.url(), concurrency, leaseMs }),
  );
  await Promise.all(workers.map((worker) => worker.ready));
  return workers;
}

async function stopWorkers(workers: readonly WorkerProcess[]): Promise<void> {
  await Promise.all(workers.map((worker) => worker.stop()));
}

/** The model server's request arrival times of the run just made (ms), then forgets them for the next run. */
function takeArrivals(bench: Bench): number[] {
  const arrivals = bench.model.requests.map((request) => request.receivedAtMs);
  bench.model.requests.length = 0;
  return arrivals;
}

const ratePerSecond = (arrivals: readonly number[]) => (arrivals.length - 1) / ((arrivals.at(-1)! - arrivals[0]!) / 1000);

async function rateFigures(bench: Bench, options: QueueBenchOptions): Promise<Figure[]> {
  const concurrency = options.workerConcurrency * Math.max(...options.workerCounts);
  const inProcess: number[] = [];
  const queued = new Map<number, number[]>(options.workerCounts.map((count) => [count, []]));
  for (let repeat = 0; repeat < options.repeats; repeat++) {
    // In-process and each worker count alternate, so a machine getting busier hurts all alike.
    takeArrivals(bench);
    await evaluate(bench, { rollouts: options.rollouts, concurrency, queue: false });
    inProcess.push(ratePerSecond(takeArrivals(bench)));
    options.log(`queue rate: in-process ${round(inProcess.at(-1)!, 1)} rollouts/s`);
    for (const count of options.workerCounts) {
      const workers = await startWorkers(bench, count, options.workerConcurrency, options.leaseMs, `rate${count}`);
      try {
        takeArrivals(bench);
        await evaluate(bench, { rollouts: options.rollouts, concurrency, queue: true });
        queued.get(count)!.push(ratePerSecond(takeArrivals(bench)));
      } finally {
        await stopWorkers(workers);
      }
      options.log(`queue rate: ${count} worker(s) ${round(queued.get(count)!.at(-1)!, 1)} rollouts/s`);
    }
  }
  const peer = median(inProcess);
  const single = median(queued.get(options.workerCounts[0]!)!);
  const bound = loadGeneratorBound()
    ? `${cpus().length} cores: producer, model server and workers share them, so the load generator is the limit`
    : `${cpus().length} cores`;
  return options.workerCounts.map((count) => {
    const value = median(queued.get(count)!);
    return {
      name: `queue.rollouts_per_s.${count}w`,
      value: round(value, 1),
      unit: 'rollouts/s',
      peer: 'corral eval in-process',
      peerValue: round(peer, 1),
      ratio: round(value / peer, 3),
      target: `scaling x${round(value / single, 2)} vs ${options.workerCounts[0]} worker(s); ${options.rollouts} rollouts, ${options.workerConcurrency} per worker; ${bound}`,
    };
  });
}

/** Gaps between consecutive model requests: with an instant model and one rollout at a time, one rollout's cycle. */
function gaps(arrivals: readonly number[]): number[] {
  return arrivals.slice(1).map((arrival, index) => arrival - arrivals[index]!);
}

async function overheadFigures(bench: Bench, options: QueueBenchOptions): Promise<Figure[]> {
  takeArrivals(bench);
  await evaluate(bench, { rollouts: options.sequentialRollouts, concurrency: 1, queue: false });
  const local = gaps(takeArrivals(bench));
  const workers = await startWorkers(bench, 1, 1, options.leaseMs, 'overhead');
  let queued: number[];
  try {
    await evaluate(bench, { rollouts: options.sequentialRollouts, concurrency: 1, queue: true });
    queued = gaps(takeArrivals(bench));
  } finally {
    await stopWorkers(workers);
  }
  const queuedP50 = percentile(queued, 50);
  const localP50 = percentile(local, 50);
  options.log(`queue overhead: p50 ${round(queuedP50, 2)} ms queued vs ${round(localP50, 2)} ms in-process per rollout`);
  return [
    {
      name: 'queue.rollout.p50',
      value: round(queuedP50, 2),
      unit: 'ms',
      peer: 'in-process',
      peerValue: round(localP50, 2),
      ratio: round(localP50 / queuedP50, 3),
      target: `${options.sequentialRollouts} sequential rollouts, p90 ${round(percentile(queued, 90), 2)} ms queued`,
    },
    { name: 'queue.overhead.p50', value: round(queuedP50 - localP50, 2), unit: 'ms', target: 'per rollout, queued minus in-process (same run)' },
  ];
}

async function recoveryFigure(bench: Bench, options: QueueBenchOptions): Promise<Figure> {
  const jobs = 4;
  const samples: number[] = [];
  try {
    for (let sample = 0; sample < options.recoverySamples; sample++) {
      // The victim alone takes every job and stalls on the model; the rescuer joins once all of them are in flight
      // on the victim, and its reruns are answered at once.
      bench.stallNext = jobs;
      const [victim] = await startWorkers(bench, 1, jobs, options.leaseMs, `victim${sample}`);
      let rescuers: WorkerProcess[] = [];
      try {
        takeArrivals(bench);
        const out = join(bench.scratch, `run-${bench.runs}`);
        const run = evaluate(bench, { rollouts: jobs, concurrency: jobs, queue: true });
        run.catch(() => {});
        await waitFor('every job in flight on the victim', () => bench.model.requests.length >= jobs, 120_000);
        rescuers = await startWorkers(bench, 1, jobs, options.leaseMs, `rescuer${sample}`);
        const killedAt = performance.now();
        victim!.kill();
        await waitFor('every record after the SIGKILL', () => recordCount(out) >= jobs, 300_000);
        samples.push((performance.now() - killedAt) / 1000);
        await run;
      } finally {
        victim!.kill();
        await stopWorkers(rescuers);
      }
      options.log(`queue recovery: ${round(samples.at(-1)!, 2)} s`);
    }
  } finally {
    bench.stallNext = 0;
  }
  return {
    name: 'queue.recovery.seconds',
    value: round(median(samples), 2),
    unit: 's',
    target: `SIGKILL to ${jobs} jobs finished elsewhere; lease ${options.leaseMs} ms, instant model for the reruns; median of ${samples.length}`,
  };
}

function recordCount(directory: string): number {
  try {
    return readFileSync(join(directory, 'results.jsonl'), 'utf8').split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
}
