/**
 * Fork figures for `corral bench sandbox` (issue 27), per backend that can fork here:
 * - fork latency: Lease.fork({ count: 1 }) of a sandbox holding a 100 MB workspace (snapshot + a warm child + restore);
 * - a GRPO group of 8 rollouts at concurrency 8 whose setup takes ~5 s alone, plus writing a 100 MB workspace: its
 *   wall time with setupScope 'example' (one setup, 8 forks) against 'rollout' (8 setups), measured in the same run.
 *   Two setups, both reported: one using every core (one CPU-bound worker per core, as a compiler, `make -j` or a
 *   package install does: the figure the target is about), and one using a single core. A single-core setup
 *   lets 8 per-rollout setups overlap on a machine's other cores for free, so its ratio cannot pass the core count's
 *   share of 8 (x4 at most on 2 cores, before any fork cost). A sleep would not do either: 8 sleeps overlap entirely.
 */
import { availableParallelism } from 'node:os';
import { environmentRolloutFactory } from '../src/cli/runtime/environment-rollouts.js';
import { exampleSandboxSource } from '../src/cli/runtime/example-sandbox-source.js';
import { startToolRuntime } from '../src/cli/runtime/tool-runtime.js';
import { loadConfig } from '../src/config/load-config.js';
import { toolsForToolsets } from '../src/mcp/toolsets.js';
import { ScriptedAgent } from '../src/runner/agents/scripted/scripted-agent.js';
import { defineEnvironment, type SetupScope } from '../src/runner/contract/environment.js';
import { runEvaluation } from '../src/runner/scheduler/run-evaluation.js';
import { namespaceCopyUnavailable } from '../src/sandbox/file-system-copy/namespace-tar.js';
import { SandboxPool } from '../src/sandbox/pool/sandbox-pool.js';
import type { BackendName } from '../src/sandbox/spec.js';
import { type Figure, round } from './figure.js';
import { median } from './measure.js';

const GROUP_SIZE = 8;
const SETUP_TARGET_MS = 5_000;
const WORKSPACE_MIB = 256;
const FILL_100_MB = 'mkdir -p data && for i in $(seq 1 100); do head -c 1048576 /dev/urandom > data/f$i; done';

export interface ForkBenchOptions {
  image: string;
  backends: readonly ('docker' | 'process')[];
  log: (line: string) => void;
}

export async function forkFigures(options: ForkBenchOptions): Promise<Figure[]> {
  const unavailable = namespaceCopyUnavailable();
  if (unavailable !== null) {
    options.log(`fork figures skipped: ${unavailable}`);
    return [];
  }
  const figures: Figure[] = [];
  for (const backend of options.backends) {
    figures.push(await forkLatency(backend, options));
    figures.push(...(await groupFigures(backend, options)));
  }
  return figures;
}

async function forkLatency(backend: BackendName, options: ForkBenchOptions): Promise<Figure> {
  options.log(`${backend}: fork of a 100 MB workspace`);
  const spec = { backend, image: options.image, workspaceMiB: WORKSPACE_MIB };
  const pool = new SandboxPool({ minIdle: 0, healthIntervalMs: 0, reapIntervalMs: 0 });
  try {
    const parent = await pool.acquire(spec);
    await parent.session.exec({ command: FILL_100_MB, timeoutMs: 120_000 });
    // Children come warm, as from a serving pool: the figure is the snapshot and the copy, not a cold start.
    const samples: number[] = [];
    for (let index = 0; index < 10; index++) {
      await pool.warm(spec, 1, { timeoutMs: 120_000 });
      const startedAt = performance.now();
      const [child] = await parent.fork({ count: 1 });
      samples.push(performance.now() - startedAt);
      await child!.release();
    }
    await parent.release();
    return { name: `sandbox.${backend}.fork.100mb.p50`, value: round(median(samples)), unit: 'ms', target: '<= 1000' };
  } finally {
    await pool.close();
  }
}

/**
 * A shell command running `workers` CPU-bound workers at once (each hashes `rounds` MiB) and failing when one fails.
 * Exported for its test: the workers must run side by side, not one after another.
 */
export function setupWorkload(workers: number, rounds: number): string {
  const worker = `python3 -c "import hashlib; h = hashlib.sha256(); b = b'x' * 1048576; [h.update(b) for _ in range(${rounds})]"`;
  return `(pids=''; for i in $(seq 1 ${workers}); do ${worker} & pids="$pids $!"; done; status=0; for pid in $pids; do wait $pid || status=1; done; exit $status)`;
}

/**
 * Hash rounds (MiB) one worker needs for SETUP_TARGET_MS of CPU time in this sandbox. CPU time, not wall time: on a
 * machine shared with other work, wall time measures the contention as much as the work, and a calibration taken in
 * a busy moment sized every later setup wrong (2 workers took twice 1 worker's wall time at load 6 here).
 */
async function calibratedRounds(run: (command: string) => Promise<string>): Promise<number> {
  const probeRounds = 1000;
  const work = `import hashlib, time; h = hashlib.sha256(); b = b'x' * 1048576; [h.update(b) for _ in range(${probeRounds})]; print(time.process_time())`;
  const cpuSeconds = Number((await run(`python3 -c "${work}"`)).trim());
  if (!(cpuSeconds > 0)) throw new Error(`calibration: the probe reported no CPU time (${cpuSeconds})`);
  return Math.max(1, Math.round((probeRounds * SETUP_TARGET_MS) / (cpuSeconds * 1000)));
}

interface SetupVariant {
  /** Figure name part: '' for the all-core setup, '.single_core' for the other. */
  suffix: string;
  workers: number;
}

async function groupFigures(backend: 'docker' | 'process', options: ForkBenchOptions): Promise<Figure[]> {
  const cores = availableParallelism();
  // The sandbox may use every core (docker's default quota is one core): the all-core setup needs them all.
  const sandbox = { workspaceMiB: WORKSPACE_MIB, cpus: cores };
  const runtime = await startToolRuntime(loadConfig({ env: {}, flags: { backend, image: options.image } }), {
    minIdle: 0,
    loadWiki: false,
    log: () => undefined,
  });
  try {
    const variants: SetupVariant[] = [
      { suffix: '', workers: cores },
      { suffix: '.single_core', workers: 1 },
    ];
    const figures: Figure[] = [];
    const probe = await runtime.pool.acquire({ backend, image: options.image, ...sandbox });
    const run = async (command: string) => (await probe.session.exec({ command, timeoutMs: 120_000 })).stdout;
    const rounds = await calibratedRounds(run);
    // Each setup once alone, as the group's rollouts run it: ~5 s on an idle machine; more says it was busy.
    const setupAloneMs: number[] = [];
    for (const variant of variants) {
      const startedAt = performance.now();
      await run(`${setupWorkload(variant.workers, rounds)} && ${FILL_100_MB}`);
      setupAloneMs.push(performance.now() - startedAt);
    }
    await probe.release();
    for (const [index, variant] of variants.entries()) {
      const setupWork = setupWorkload(variant.workers, rounds);
      const label = `${backend}: a group of ${GROUP_SIZE}, setup on ${variant.workers} core(s)`;
      options.log(`${label}, setup per rollout`);
      const perRollout = await groupMs(runtime, setupWork, sandbox, 'rollout', options.log);
      options.log(`${label}, one setup and ${GROUP_SIZE} forks`);
      const shared = await groupMs(runtime, setupWork, sandbox, 'example', options.log);
      figures.push({
        name: `sandbox.${backend}.group${GROUP_SIZE}.shared_setup${variant.suffix}.wall`,
        value: round(shared),
        unit: 'ms',
        peer: 'setup per rollout',
        peerValue: round(perRollout),
        ratio: round(perRollout / shared, 1),
        // One core's setup: 8 of them overlap on the other cores, so on an idle machine the ratio stays under 8 / cores.
        target: variant.workers === cores ? 'ratio >= 4' : `none (idle bound x${round(GROUP_SIZE / Math.min(cores, GROUP_SIZE), 1)} on ${cores} cores)`,
      });
      figures.push({
        name: `sandbox.${backend}.group${GROUP_SIZE}.setup${variant.suffix}.alone`,
        value: round(setupAloneMs[index]!),
        unit: 'ms',
        target: '~5000 + the 100 MB write',
      });
    }
    return figures;
  } finally {
    await runtime.close();
  }
}

/** Wall time of one group of GROUP_SIZE rollouts at concurrency GROUP_SIZE, each errored rollout a failure. */
async function groupMs(
  runtime: Awaited<ReturnType<typeof startToolRuntime>>,
  setupWork: string,
  sandbox: { workspaceMiB: number; cpus: number },
  setupScope: SetupScope,
  log: (line: string) => void,
): Promise<number> {
  // Where the wall time goes: setups (first start, last end) and the last rollout scored, from the group's start.
  const marks = { setupStartMs: Number.POSITIVE_INFINITY, setupEndMs: 0, lastScoredMs: 0 };
  let startedAt = 0;
  const environment = defineEnvironment({
    name: 'fork-bench',
    toolsets: ['shell'],
    setupScope,
    sandbox,
    dataset: () => [],
    rubric: [
      {
        name: 'answered',
        weight: 1,
        score: ({ trajectory }) => {
          marks.lastScoredMs = Math.max(marks.lastScoredMs, performance.now() - startedAt);
          return trajectory.answer === null ? 0 : 1;
        },
      },
    ],
    systemPrompt: 'bench',
    maxTurns: 3,
    limits: { toolTimeoutMs: 300_000, rolloutTimeoutMs: 600_000 },
    async setup({ sandbox: session }) {
      marks.setupStartMs = Math.min(marks.setupStartMs, performance.now() - startedAt);
      await session.exec({ command: `${setupWork} && ${FILL_100_MB}`, timeoutMs: 300_000 });
      marks.setupEndMs = Math.max(marks.setupEndMs, performance.now() - startedAt);
    },
  });
  const agent = new ScriptedAgent([{ toolCalls: [{ name: 'bash', arguments: { command: 'ls data | wc -l' } }] }, { answer: 'done' }]);
  startedAt = performance.now();
  let errors = 0;
  await runEvaluation({
    environment,
    agent,
    rollouts: environmentRolloutFactory({
      environment,
      toolsetTools: toolsForToolsets(environment.toolsets),
      sandboxSourceFor: (example) => exampleSandboxSource(runtime, environment, example),
    }),
    examples: [{ id: 'group', prompt: 'go' }],
    rolloutsPerExample: GROUP_SIZE,
    concurrency: GROUP_SIZE,
    maxAttempts: 1,
    abortSignal: new AbortController().signal,
    onGroup: (records) => (errors += records.filter((record) => record.error !== null).length),
  });
  if (errors > 0) throw new Error(`${errors} rollouts of the ${setupScope}-scope group errored`);
  const wallMs = performance.now() - startedAt;
  const at = (ms: number) => `${Math.round(ms)} ms`;
  log(
    `  ${setupScope} scope: wall ${at(wallMs)}; first setup began at ${at(marks.setupStartMs)}, the last ended at ${at(marks.setupEndMs)}, ` +
      `the last rollout was scored at ${at(marks.lastScoredMs)}`,
  );
  return wallMs;
}
