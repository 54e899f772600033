/**
 * Fork figures for `corral bench sandbox` (issue 27), per backend that can fork here:
 * - fork latency: Lease.fork({ count: 1 }) of a sandbox holding a 100 MB workspace (snapshot + a warm child + restore);
 * - a GRPO group of 8 rollouts at concurrency 8 whose setup is ~5 s of work alone (CPU-bound, as a clone or an
 *   install is, plus writing a 100 MB workspace): its wall time with setupScope 'example' (one setup, 8 forks) against
 *   'rollout' (8 setups), measured in the same run. A sleep would not do: 8 sleeps overlap for free.
 */
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
    figures.push(await groupWallTime(backend, options));
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

/** A shell command doing a fixed amount of CPU work that takes about `targetMs` alone on this machine. */
async function calibratedWork(run: (command: string) => Promise<number>): Promise<string> {
  const work = (rounds: number) => `python3 -c "import hashlib; h = hashlib.sha256(); b = b'x' * 1048576; [h.update(b) for _ in range(${rounds})]"`;
  const probeRounds = 200;
  const probeMs = await run(work(probeRounds));
  return work(Math.max(1, Math.round((probeRounds * SETUP_TARGET_MS) / probeMs)));
}

async function groupWallTime(backend: 'docker' | 'process', options: ForkBenchOptions): Promise<Figure> {
  const runtime = await startToolRuntime(loadConfig({ env: {}, flags: { backend, image: options.image } }), {
    minIdle: 0,
    loadWiki: false,
    log: () => undefined,
  });
  try {
    const probe = await runtime.pool.acquire({ backend, image: options.image });
    const setupWork = await calibratedWork(async (command) => {
      const startedAt = performance.now();
      await probe.session.exec({ command, timeoutMs: 120_000 });
      return performance.now() - startedAt;
    });
    await probe.release();
    const groupMs = async (setupScope: SetupScope): Promise<number> => {
      const environment = defineEnvironment({
        name: 'fork-bench',
        toolsets: ['shell'],
        setupScope,
        sandbox: { workspaceMiB: WORKSPACE_MIB },
        dataset: () => [],
        rubric: [{ name: 'answered', weight: 1, score: ({ trajectory }) => (trajectory.answer === null ? 0 : 1) }],
        systemPrompt: 'bench',
        maxTurns: 3,
        limits: { toolTimeoutMs: 300_000, rolloutTimeoutMs: 600_000 },
        async setup({ sandbox }) {
          await sandbox.exec({ command: `${setupWork} && ${FILL_100_MB}`, timeoutMs: 300_000 });
        },
      });
      const agent = new ScriptedAgent([{ toolCalls: [{ name: 'bash', arguments: { command: 'ls data | wc -l' } }] }, { answer: 'done' }]);
      const startedAt = performance.now();
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
      return performance.now() - startedAt;
    };
    options.log(`${backend}: a group of ${GROUP_SIZE}, setup per rollout`);
    const perRollout = await groupMs('rollout');
    options.log(`${backend}: a group of ${GROUP_SIZE}, one setup and ${GROUP_SIZE} forks`);
    const shared = await groupMs('example');
    return {
      name: `sandbox.${backend}.group${GROUP_SIZE}.shared_setup.wall`,
      value: round(shared),
      unit: 'ms',
      peer: 'setup per rollout',
      peerValue: round(perRollout),
      ratio: round(perRollout / shared, 1),
      target: 'ratio >= 4',
    };
  } finally {
    await runtime.close();
  }
}
