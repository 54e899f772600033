/**
 * `corral bench sandbox`: warm-pool acquire vs a cold `docker run`, agent round trips vs `docker exec`, Python and
 * isolate latencies, Docker creation rate, verified reset, 200 concurrent containers, leaks after a SIGKILL, and fork
 * (sandbox-bench-fork.ts: latency for a 100 MB workspace, a group of 8 with one shared setup vs setup per rollout).
 * Peers are measured in the same run; ratios are peer / ours for times.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SandboxPool } from '../src/sandbox/pool/sandbox-pool.js';
import { loadProvider } from '../src/sandbox/registry.js';
import { type SandboxSpecInput, parseSandboxSpec } from '../src/sandbox/spec.js';
import type { Lease } from '../src/sandbox/lease.js';
import { type Figure, percentile, round } from './figure.js';
import { forkFigures } from './sandbox-bench-fork.js';
import { type StatsSource, idleMemoryFigure } from './sandbox-bench-memory.js';
import { execFileAsync, median, sampleMs, timeCommandMs } from './measure.js';

export const SANDBOX_BENCH_PARTS = ['isolate', 'process', 'docker', 'fork'] as const;
export type SandboxBenchPart = (typeof SANDBOX_BENCH_PARTS)[number];

export interface SandboxBenchOptions {
  image: string;
  /** Which figures to measure (default: all); `fork` alone skips the 200 containers of the docker part. */
  parts?: readonly SandboxBenchPart[];
  /** Sandboxes held at once for sandbox.docker.concurrent. */
  concurrent: number;
  log: (line: string) => void;
  /** Where idle memory is read (default `docker stats`); injected to test a failing daemon. */
  statsSource?: StatsSource;
}

const ratio = (peerValue: number, value: number) => round(peerValue / value, 1);

export async function runSandboxBench(options: SandboxBenchOptions): Promise<Figure[]> {
  const parts = options.parts ?? SANDBOX_BENCH_PARTS;
  const figures: Figure[] = [];
  if (parts.includes('isolate')) figures.push(...(await isolateFigures(options)));
  if (parts.includes('process')) figures.push(...(await processFigures(options)));
  if (!parts.includes('docker') && !parts.includes('fork')) return figures;
  const docker = await dockerAvailable();
  if (!docker) options.log('docker unavailable: docker figures skipped (run `corral doctor`)');
  if (docker && parts.includes('docker')) figures.push(...(await dockerFigures(options)));
  if (parts.includes('fork'))
    figures.push(...(await forkFigures({ image: options.image, backends: docker ? ['process', 'docker'] : ['process'], log: options.log })));
  return figures;
}

async function dockerAvailable(): Promise<boolean> {
  const provider = await loadProvider('docker');
  return (await provider.available().finally(() => provider.close())).ok;
}

async function coldAcquireP50(spec: SandboxSpecInput, count: number): Promise<number> {
  const pool = new SandboxPool({ minIdle: 0, healthIntervalMs: 0, reapIntervalMs: 0 });
  try {
    await (await pool.acquire(spec)).release(); // load the backend before timing
    return median(await sampleMs(count, async () => (await pool.acquire(spec)).release()));
  } finally {
    await pool.close();
  }
}

async function isolateFigures(options: SandboxBenchOptions): Promise<Figure[]> {
  options.log('isolate: cold acquire');
  const value = await coldAcquireP50({ backend: 'isolate', memoryMiB: 64 }, 50);
  return [{ name: 'sandbox.isolate.acquire.p50', value: round(value), unit: 'ms', target: '<= 10' }];
}

async function processFigures(options: SandboxBenchOptions): Promise<Figure[]> {
  options.log('process: cold acquire (bubblewrap)');
  const value = await coldAcquireP50({ backend: 'process' }, 20);
  return [{ name: 'sandbox.process.acquire.p50', value: round(value), unit: 'ms' }];
}

async function dockerFigures(options: SandboxBenchOptions): Promise<Figure[]> {
  const spec = parseSandboxSpec({ backend: 'docker', image: options.image });
  const figures: Figure[] = [];
  const pool = new SandboxPool({ max: options.concurrent + 8, healthIntervalMs: 0, reapIntervalMs: 0 });
  const peerContainer = (await execFileAsync('docker', ['run', '-d', '--rm', '--network', 'none', options.image, 'sleep', '600'])).stdout.trim();
  try {
    options.log('docker: warm acquire vs cold docker run');
    const warmSamples: number[] = [];
    for (let round = 0; round < 5; round++) {
      await pool.warm(spec, 16, { timeoutMs: 120_000 });
      const leases = [];
      for (let index = 0; index < 16; index++) {
        const startedAt = performance.now();
        leases.push(await pool.acquire(spec));
        warmSamples.push(performance.now() - startedAt);
      }
      await Promise.all(leases.map((lease) => lease.release()));
    }
    const coldRun = median(await sampleMs(5, () => timeCommandMs('docker', ['run', '--rm', '--network', 'none', options.image, 'true'])));
    const warmP50 = percentile(warmSamples, 50);
    figures.push(
      {
        name: 'sandbox.acquire.warm.p50',
        value: round(warmP50),
        unit: 'ms',
        peer: 'docker run (cold)',
        peerValue: round(coldRun),
        ratio: ratio(coldRun, warmP50),
        target: '<= 5, ratio >= 100',
      },
      { name: 'sandbox.acquire.warm.p99', value: round(percentile(warmSamples, 99)), unit: 'ms', target: '<= 50' },
    );

    options.log('docker: shell and python round trips vs docker exec');
    const lease = await pool.acquire(spec);
    await lease.session.exec({ command: 'true' });
    const shell = median(await sampleMs(200, () => lease.session.exec({ command: 'true' })));
    const dockerExec = median(await sampleMs(20, () => timeCommandMs('docker', ['exec', peerContainer, 'true'])));
    figures.push({
      name: 'sandbox.shell.roundtrip.p50',
      value: round(shell),
      unit: 'ms',
      peer: 'docker exec',
      peerValue: round(dockerExec),
      ratio: ratio(dockerExec, shell),
      target: '<= 5, ratio >= 50',
    });
    await lease.session.python({ code: 'x = 0' });
    const python = median(await sampleMs(200, () => lease.session.python({ code: 'x = x + 1' })));
    figures.push({ name: 'sandbox.python.roundtrip.p50', value: round(python), unit: 'ms', target: '<= 3' });
    await lease.release();

    figures.push(...(await resetFigures(options)));
    await pool.close();
    figures.push(...(await creationFigures(options)));
    figures.push(...(await concurrencyFigures(options)));
    figures.push(await leakFigure(options));
  } finally {
    await pool.close();
    await execFileAsync('docker', ['rm', '-f', peerContainer]).catch(() => undefined);
  }
  return figures;
}

async function resetFigures(options: SandboxBenchOptions): Promise<Figure[]> {
  options.log('docker: verified reset');
  const provider = await loadProvider('docker');
  const spec = parseSandboxSpec({ backend: 'docker', image: options.image, reuse: 'reset' });
  const handle = await provider.create(spec, {
    sandboxId: 'bench-reset',
    ownerId: (await import('../src/core/owner.js')).OWNER_ID,
    expiresAtMs: Date.now() + 600_000,
  });
  try {
    const samples: number[] = [];
    for (let index = 0; index < 20; index++) {
      await handle.session.exec({ command: 'echo data > /workspace/f; echo t > /tmp/t; (sleep 100 &)' });
      await handle.session.python({ code: 'y = 1' });
      const report = await handle.reset();
      if (!report.ok) throw new Error(`reset not verified: ${JSON.stringify(report)}`);
      samples.push(report.durationMs);
    }
    return [{ name: 'sandbox.reset.p50', value: round(median(samples)), unit: 'ms', target: '<= 50' }];
  } finally {
    await handle.destroy();
    await provider.close();
  }
}

async function creationFigures(options: SandboxBenchOptions): Promise<Figure[]> {
  options.log('docker: creation rate');
  const pool = new SandboxPool({ healthIntervalMs: 0, reapIntervalMs: 0 });
  const spec = { backend: 'docker' as const, image: options.image };
  try {
    await (await pool.acquire(spec)).release();
    const count = 24;
    const startedAt = performance.now();
    const leases = await Promise.all(Array.from({ length: count }, () => pool.acquire(spec)));
    const seconds = (performance.now() - startedAt) / 1000;
    await Promise.all(leases.map((lease) => lease.release()));
    return [
      {
        name: 'sandbox.docker.create_per_s',
        value: round(count / seconds, 2),
        unit: '/s',
        target: `at create concurrency ${pool.options.createConcurrency.docker}`,
      },
    ];
  } finally {
    await pool.close();
  }
}

export async function concurrencyFigures(options: SandboxBenchOptions): Promise<Figure[]> {
  options.log(`docker: ${options.concurrent} sandboxes held at once`);
  const pool = new SandboxPool({ max: options.concurrent, healthIntervalMs: 0, reapIntervalMs: 0, acquireTimeoutMs: 600_000 });
  const spec = { backend: 'docker' as const, image: options.image };
  let leases: Lease[] = [];
  try {
    const results = await Promise.allSettled(Array.from({ length: options.concurrent }, () => pool.acquire(spec)));
    leases = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    const calls = await Promise.allSettled(leases.map((lease) => lease.session.python({ code: '1 + 1' })));
    const errors = results.length - leases.length + calls.filter((call) => call.status === 'rejected' || call.value.value !== '2').length;
    const listIds = async () => (await execFileAsync('docker', ['ps', '-q', '--filter', 'label=corral.app=corral'])).stdout.split('\n').filter(Boolean);
    const memory = await idleMemoryFigure(listIds, options.statsSource);
    if (memory.error) options.log(`docker: ${memory.error} (figure reported as failed; the sandboxes are released)`);
    return [
      { name: 'sandbox.docker.concurrent', value: leases.length, unit: 'sandboxes', target: `${options.concurrent} with 0 errors` },
      { name: 'sandbox.docker.concurrent.errors', value: errors, unit: 'errors', target: '0' },
      memory,
    ];
  } finally {
    await Promise.allSettled(leases.map((lease) => lease.release()));
    await pool.close();
  }
}

async function leakFigure(options: SandboxBenchOptions): Promise<Figure> {
  options.log('docker: SIGKILL an owner, then `corral cleanup`');
  const orphanScript = fileURLToPath(new URL('./orphan-owner.ts', import.meta.url));
  // Node itself with tsx's loader, not the tsx wrapper: the SIGKILL must hit the process that owns the sandboxes.
  const projectRoot = fileURLToPath(new URL('../', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx/esm', orphanScript, 'docker', '5'], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
    child.on('exit', (code) => reject(new Error(`orphan owner exited early (${code})`)));
  });
  child.kill('SIGKILL');
  await new Promise((resolve) => child.on('exit', resolve));
  const cli = fileURLToPath(new URL('../bin/corral.mjs', import.meta.url));
  await execFileAsync(process.execPath, [cli, 'cleanup']);
  const left = (await execFileAsync('docker', ['ps', '-aq', '--filter', 'label=corral.app=corral'])).stdout.split('\n').filter(Boolean).length;
  return { name: 'sandbox.leaked_after_kill', value: left, unit: 'containers', target: '0' };
}
