/**
 * The `corral bench` subcommands, registered by src/cli/commands/bench.ts when it runs in a checkout. Benchmarks
 * are kept as code; each measures its peer in the same run. The mcp, search, runner and agents benches are imported when
 * run, so their load generators load only for the bench that needs them.
 */
import type { Command } from 'commander';
import { openEnvironmentTools } from '../src/cli/eval/environment-tools.js';
import { loadConfig } from '../src/config/load-config.js';
import { CorralError } from '../src/core/errors.js';
import type { Environment } from '../src/runner/contract/environment.js';
import { type Figure, formatFigures } from './figure.js';
import { describeMachine } from './machine.js';
import type { BenchToolRuntime } from './runner-bench-tools.js';
import { SANDBOX_BENCH_PARTS, runSandboxBench } from './sandbox-bench.js';

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

/** Adds sandbox, mcp, search, runner, ..., queue and cli to `bench` (a commander program of its own, named "corral bench"). */
export function registerBenchSubcommands(bench: Command): void {
  bench.description('run a benchmark; --json prints an array of {name, value, unit, peer?, peerValue?, ratio?}');
  bench
    .command('sandbox')
    .description(
      'warm acquire, agent round trips, reset, creation rate, concurrency and leaks, against docker run/exec; fork latency and a group of 8 with one shared setup vs setup per rollout',
    )
    .option('--json', 'print only the JSON array of figures on stdout')
    .option('--only <parts>', 'comma-separated subset of isolate,process,docker,fork')
    .option('--image <image>', 'sandbox image', 'corral/python:latest')
    .option('--concurrent <n>', 'Docker sandboxes held at once', '200')
    .action(async (options: { json?: boolean; only?: string; image: string; concurrent: string }) => {
      const figures = await runSandboxBench({
        image: options.image,
        parts: chooseParts(options.only, SANDBOX_BENCH_PARTS),
        concurrent: Number(options.concurrent),
        log,
      });
      print(figures, options.json === true, 'sandbox: medians of sequential samples after one warm-up call; peers run in the same process and session.');
    });

  bench
    .command('mcp')
    .description(
      'MCP calls/s over Streamable HTTP (vs an SDK-example server and a bare fastify route) and WebSocket, python round trips, memory per idle session',
    )
    .option('--json', 'print only the JSON array of figures on stdout')
    .option('--only <parts>', 'comma-separated subset of http,ws,python,sessions')
    .option('--backend <name>', 'sandbox backend for the python figure: process | docker', 'process')
    .option('--image <image>', 'sandbox image for --backend docker', 'corral/python:latest')
    .option('--clients <n>', 'closed-loop HTTP clients (CORRAL_BENCH_CLIENTS)', process.env['CORRAL_BENCH_CLIENTS'] ?? '32')
    .option('--rounds <n>', 'interleaved rounds per throughput figure (CORRAL_BENCH_ROUNDS)', process.env['CORRAL_BENCH_ROUNDS'] ?? '3')
    .option('--round-ms <ms>', 'measured time per round and server (CORRAL_BENCH_ROUND_MS)', process.env['CORRAL_BENCH_ROUND_MS'] ?? '3000')
    .option('--ws-connections <n>', 'WebSocket connections', '8')
    .option('--ws-inflight <n>', 'calls in flight per WebSocket connection', '64')
    .option('--sessions <n>', 'idle MCP sessions held for the memory figure', '2000')
    .action(
      async (options: {
        json?: boolean;
        only?: string;
        backend: string;
        image: string;
        clients: string;
        rounds: string;
        roundMs: string;
        wsConnections: string;
        wsInflight: string;
        sessions: string;
      }) => {
        if (options.backend !== 'process' && options.backend !== 'docker')
          throw new CorralError('CFG_ERR_INVALID', `--backend must be process or docker, got ${options.backend}`);
        const { MCP_BENCH_PARTS, runMcpBench } = await import('./mcp-bench.js');
        const figures = await runMcpBench({
          parts: chooseParts(options.only, MCP_BENCH_PARTS),
          backend: options.backend,
          image: options.image,
          clients: positive(options.clients, '--clients'),
          rounds: positive(options.rounds, '--rounds'),
          roundMs: positive(options.roundMs, '--round-ms'),
          wsConnections: positive(options.wsConnections, '--ws-connections'),
          wsInflight: positive(options.wsInflight, '--ws-inflight'),
          sessions: positive(options.sessions, '--sessions'),
          log,
        });
        print(
          figures,
          options.json === true,
          'mcp: throughput = median over interleaved rounds (servers in this process, undici/ws load generators in a child process, 500 ms warm-up per round); python = median of sequential calls in alternating blocks; sessions = heap+external growth after forced GC in a child server, per session.',
        );
      },
    );

  bench
    .command('search')
    .description(
      'wiki search recall on the SQuAD dev split (vs a title-only matcher), query latency, index build/load; the disk index at 100k and 1M synthetic pages (vs the in-memory index at 100k)',
    )
    .option('--json', 'print only the JSON array of figures on stdout')
    .option('--data-dir <dir>', 'evaluation data directory (CORRAL_DATA_DIR)')
    .option('--scales <list>', 'synthetic corpus sizes indexed on disk, comma-separated (0 skips them)', '100000,1000000')
    .option('--memory-peer-pages <n>', 'size at which the in-memory index runs as the peer (0: none)', '100000')
    .option('--queries <n>', 'dev questions timed at scale', '1000')
    .action(async (options: { json?: boolean; dataDir?: string; scales: string; memoryPeerPages: string; queries: string }) => {
      const dataDir = requireDataDir(options.dataDir);
      const { runSearchBench } = await import('./search-bench.js');
      const scalePageCounts = options.scales
        .split(',')
        .map(Number)
        .filter((count) => count > 0);
      const figures = await runSearchBench({
        dataDir,
        scalePageCounts,
        memoryPeerPages: Number(options.memoryPeerPages),
        scaleQuestionCount: Number(options.queries),
        log,
      });
      print(
        figures,
        options.json === true,
        "search: medians over the dev questions after one untimed pass; builds and loads are medians of 3; the title-only peer runs in the same process. At scale each figure is one child process (build; serve: read-only open, p50/p99 of 1,000 questions after warming up on 1,000 others, RSS; the in-memory peer, timed the same way, after every disk index has served); corpora and indexes are cached in corral's cache directory.",
      );
    });

  bench
    .command('runner')
    .description(
      'wiki-search rollouts/s (openai agent vs an instant scripted model), HumanEval graded in Docker (vs docker run), baseline exact match, training-sample build cost, -c auto vs fixed -c on a degrading endpoint',
    )
    .option('--json', 'print only the JSON array of figures on stdout')
    .option('--data-dir <dir>', 'evaluation data directory (CORRAL_DATA_DIR)')
    .option('--only <parts>', 'comma-separated subset of wiki,humaneval,baseline,samples,admission')
    .option('--admission-rollouts <n>', 'admission: rollouts per -c setting', '2000')
    .option('--rollouts <n>', 'wiki rollouts per timed run, all in flight at once', '1024')
    .option('--repeats <n>', 'timed wiki runs (median)', '3')
    .option('--image <image>', 'sandbox image for HumanEval and its docker run peer', 'corral/python:latest')
    .option('--concurrency <n>', 'HumanEval problems graded at once (runner and peer alike)', '16')
    .option('--limit <n>', 'baseline: first N dev questions (default: all 2,454)')
    .action(
      async (options: {
        json?: boolean;
        dataDir?: string;
        only?: string;
        rollouts: string;
        repeats: string;
        image: string;
        concurrency: string;
        limit?: string;
        admissionRollouts: string;
      }) => {
        const { RUNNER_BENCH_PARTS, runRunnerBench } = await import('./runner-bench.js');
        const parts = chooseParts(options.only, RUNNER_BENCH_PARTS);
        // The samples part is pure CPU on a synthetic record: it needs no evaluation data.
        const dataDir = parts.every((part) => part === 'samples' || part === 'admission') ? '' : requireDataDir(options.dataDir);
        const figures = await runRunnerBench({
          dataDir,
          openTools: (environment, { backend }) => openEvalTools(environment, { backend, dataDir, image: options.image }),
          parts,
          rollouts: positive(options.rollouts, '--rollouts'),
          repeats: positive(options.repeats, '--repeats'),
          image: options.image,
          humanEvalConcurrency: positive(options.concurrency, '--concurrency'),
          baselineLimit: options.limit === undefined ? undefined : positive(options.limit, '--limit'),
          baselineConcurrency: 32,
          admissionRollouts: positive(options.admissionRollouts, '--admission-rollouts'),
          log,
        });
        print(
          figures,
          options.json === true,
          'runner: wiki = median of timed runEvaluation runs after a 256-rollout warm-up (scripted model in a child process, results written to a temp dir); humaneval = one cold-pool batch each for the runner and the docker run peer, at the same concurrency; baseline = one pass over the dev questions; samples = median ms per buildSamples call on a synthetic 10-turn 8k-token rollout (5 rounds of 500 after a warm-up), JSON.stringify of the same record as the peer; admission = one run each of -c auto and fixed -c 8..256 on an in-process endpoint that answers 429 above 48 in flight, ratio against the best and the worst fixed.',
        );
      },
    );

  bench
    .command('terminal')
    .description('an oracle trial of hello-world vs the plain docker CLI way, every terminal-tasks-harbor task with the oracle at -c 4, cached image rebuild')
    .option('--json', 'print only the JSON array of figures on stdout')
    .option('--data-dir <dir>', 'evaluation data directory (CORRAL_DATA_DIR)')
    .option('--samples <n>', 'interleaved samples for the trial p50', '7')
    .option('--concurrency <n>', 'trials in flight for terminal.oracle.all.seconds', '4')
    .action(async (options: { json?: boolean; dataDir?: string; samples: string; concurrency: string }) => {
      const dataDir = requireDataDir(options.dataDir);
      const { runTerminalBench } = await import('./terminal-bench.js');
      const figures = await runTerminalBench({
        dataDir,
        samples: positive(options.samples, '--samples'),
        concurrency: positive(options.concurrency, '--concurrency'),
        log,
      });
      print(
        figures,
        options.json === true,
        'terminal: trial p50 = median of interleaved samples (warm: the pool made the container before the timer; cold: created inside it; plain: docker run -d, cp solution, exec solve.sh, cp tests, exec test.sh, exec cat reward, rm -f) after one warm-up round; all = one pass from built images, pool creation included; cached = a second buildTaskImages over every task.',
      );
    });

  bench
    .command('agents')
    .description('CLI coding agents: the recording model proxy overhead per model call and dialect (vs calling the endpoint directly)')
    .option('--json', 'print only the JSON array of figures on stdout')
    .option('--only <parts>', 'comma-separated subset of proxy,cli')
    .option('--proxy-samples <n>', 'paired calls per dialect for the proxy figures', '400')
    .option('--cli-rollouts <n>', 'scripted rollouts per CLI for agents.<cli>.rollout.p50', '3')
    .option('--cli-startups <n>', '--version runs per CLI for agents.<cli>.startup.p50 (after one warm-up)', '5')
    .option('--concurrent <n>', 'CLI rollouts at once for agents.concurrent', '16')
    .option('--concurrent-agent <name>', 'the CLI of agents.concurrent', 'codex')
    .option('--cli-agents <names>', 'comma-separated CLIs for the startup and rollout figures (default all five)')
    .action(
      async (options: {
        json?: boolean;
        only?: string;
        proxySamples: string;
        cliRollouts: string;
        cliStartups: string;
        concurrent: string;
        concurrentAgent: string;
        cliAgents?: string;
      }) => {
        const { AGENTS_BENCH_PARTS, runAgentsBench } = await import('./agents-bench.js');
        const figures = await runAgentsBench({
          parts: chooseParts(options.only, AGENTS_BENCH_PARTS),
          proxySamples: positive(options.proxySamples, '--proxy-samples'),
          cli: {
            startupSamples: positive(options.cliStartups, '--cli-startups'),
            rolloutSamples: positive(options.cliRollouts, '--cli-rollouts'),
            concurrent: positive(options.concurrent, '--concurrent'),
            concurrentAgent: options.concurrentAgent,
            ...(options.cliAgents ? { agents: options.cliAgents.split(',') } : {}),
          },
          log,
        });
        print(
          figures,
          options.json === true,
          'agents: proxy = median of paired differences (each CLI request captured from the real CLI, streamed through the proxy to an in-process scripted model, vs the same conversation in Chat Completions form straight to it; alternating order, 50 warm-up pairs, one undici keep-alive client). cli: startup = --version exec in a running corral/python sandbox (peer: bare `true` exec there); rollout = one scripted shell + corral-MCP-python rollout, sandbox acquire to markers checked; first_request = rollout start to the first model request; concurrent = rollouts at once, errors counted.',
        );
      },
    );

  bench
    .command('environments')
    .description(
      'custom environments served: a custom tool over HTTP MCP (vs the built-in trivial tool), episode overhead, step API overhead (vs a bare fastify round trip), custom-environment rollouts/s',
    )
    .option('--json', 'print only the JSON array of figures on stdout')
    .option('--only <parts>', 'comma-separated subset of tool,episode,step,rollouts')
    .option('--clients <n>', 'closed-loop HTTP clients for the tool figure (CORRAL_BENCH_CLIENTS)', process.env['CORRAL_BENCH_CLIENTS'] ?? '32')
    .option('--rounds <n>', 'interleaved rounds for the tool figure (CORRAL_BENCH_ROUNDS)', process.env['CORRAL_BENCH_ROUNDS'] ?? '3')
    .option('--round-ms <ms>', 'measured time per round and tool (CORRAL_BENCH_ROUND_MS)', process.env['CORRAL_BENCH_ROUND_MS'] ?? '3000')
    .option('--episodes <n>', 'sequential episodes sampled for the overhead figure', '400')
    .option('--steps <n>', 'sequential steps sampled per kind (HTTP, WebSocket, bare round trip) for the step figure', '1000')
    .option('--rollouts <n>', 'rollouts per timed run', '1024')
    .option('--in-flight <n>', 'rollouts in flight at once', '256')
    .option('--repeats <n>', 'timed rollout runs per environment (median)', '3')
    .action(
      async (options: {
        json?: boolean;
        only?: string;
        clients: string;
        rounds: string;
        roundMs: string;
        episodes: string;
        steps: string;
        rollouts: string;
        inFlight: string;
        repeats: string;
      }) => {
        const { ENVIRONMENTS_BENCH_PARTS, runEnvironmentsBench } = await import('./environments-bench.js');
        const figures = await runEnvironmentsBench({
          parts: chooseParts(options.only, ENVIRONMENTS_BENCH_PARTS),
          clients: positive(options.clients, '--clients'),
          rounds: positive(options.rounds, '--rounds'),
          roundMs: positive(options.roundMs, '--round-ms'),
          episodes: positive(options.episodes, '--episodes'),
          steps: positive(options.steps, '--steps'),
          rollouts: positive(options.rollouts, '--rollouts'),
          inFlight: positive(options.inFlight, '--in-flight'),
          repeats: positive(options.repeats, '--repeats'),
          log,
        });
        print(
          figures,
          options.json === true,
          'environments: tool = median over interleaved rounds (one server in this process, the custom tool at /mcp/bench-custom and search_pages at /mcp/wiki, undici load generator in a child process, 500 ms warm-up per round); episode = median of sequential create + score + delete over HTTP after 100 warm-up episodes, alternating blocks of 50 with 3 POSTs to a bare fastify route; step = medians of sequential tool-call steps (POST /v1/episodes/<id>/step and over /ws/episodes, episodes made and deleted between timed calls) and of single POSTs of the same body to a bare fastify route, alternating blocks of 50 after a warm-up of 100 each, overhead = step p50 minus round-trip p50, and the same in CPU time of this process (client and server) summed over the timed calls only; rollouts = median of timed runEvaluation runs (openai agent, scripted model in a child process), custom and built-in alternating after a warm-up run each.',
        );
      },
    );

  bench
    .command('view')
    .description('the run viewer at 100,000 rollouts in headless Chromium: run page first paint, rollout open, /api/rollouts page p50')
    .option('--json', 'print only the JSON array of figures on stdout')
    .option('--rollouts <n>', 'rollouts in the synthetic run', '100000')
    .option('--loads <n>', 'page loads per first-paint figure (median)', '5')
    .option('--requests <n>', '/api/rollouts requests for the page figure', '400')
    .option('--chromium <path>', 'the Chromium binary', '/usr/bin/chromium')
    .action(async (options: { json?: boolean; rollouts: string; loads: string; requests: string; chromium: string }) => {
      const { runViewBench } = await import('./view-bench.js');
      const figures = await runViewBench({
        rollouts: positive(options.rollouts, '--rollouts'),
        loads: positive(options.loads, '--loads'),
        requests: positive(options.requests, '--requests'),
        chromium: options.chromium,
        log,
      });
      print(
        figures,
        options.json === true,
        'view: viewer server in this process, headless Chromium (playwright-core); first paint = median over fresh page loads after one warm-up load (performance.now() when the first table row exists); rollout open = median time from a j key press to the next rollout rendered; rollouts page = p50 over requests paging 10 pages through each of 40 sort x filter x order choices (as a user pages), the first page of each choice (a fresh sort of every row) excluded and reported as rollouts_sort.first; index.cold = the first api/run of a fresh server (index + rows + statistics).',
      );
    });

  bench
    .command('queue')
    .description('the durable queue: rollouts/s with 1, 2 and 4 worker processes, per-rollout overhead and SIGKILL recovery, vs corral eval in-process')
    .option('--json', 'print only the JSON array of figures on stdout')
    .option('--only <parts>', 'comma-separated subset of rate,overhead,recovery')
    .option('--rollouts <n>', 'rollouts per throughput run', '2000')
    .option('--workers <list>', 'worker process counts for the throughput figures', '1,2,4')
    .option('--worker-concurrency <n>', 'jobs per worker at once in the throughput runs', '32')
    .option('--repeats <n>', 'throughput runs per worker count (median)', '1')
    .option('--sequential <n>', 'sequential rollouts for the overhead figure', '300')
    .option('--recovery-samples <n>', 'SIGKILL recoveries sampled (median)', '3')
    .option('--lease-ms <ms>', "workers' lease (the recovery figure waits for it)", '3000')
    .action(
      async (options: {
        json?: boolean;
        only?: string;
        rollouts: string;
        workers: string;
        workerConcurrency: string;
        repeats: string;
        sequential: string;
        recoverySamples: string;
        leaseMs: string;
      }) => {
        const { QUEUE_BENCH_PARTS, loadGeneratorBound, runQueueBench } = await import('./queue-bench.js');
        const figures = await runQueueBench({
          parts: chooseParts(options.only, QUEUE_BENCH_PARTS),
          rollouts: positive(options.rollouts, '--rollouts'),
          workerCounts: options.workers.split(',').map((count) => positive(count.trim(), '--workers')),
          workerConcurrency: positive(options.workerConcurrency, '--worker-concurrency'),
          repeats: positive(options.repeats, '--repeats'),
          sequentialRollouts: positive(options.sequential, '--sequential'),
          recoverySamples: positive(options.recoverySamples, '--recovery-samples'),
          leaseMs: positive(options.leaseMs, '--lease-ms'),
          log,
        });
        print(
          figures,
          options.json === true,
          `queue: a private redis-server, real corral worker processes and corral eval --queue on the counting environment (one instant scripted model reply per rollout, model server in this process); rollouts/s timed at the model server from the first to the last request (start-up excluded), in-process peer = corral eval without --queue at the same -c, alternating; overhead = p50 gap between consecutive model requests with one worker at concurrency 1 and -c 1, vs in-process; recovery = SIGKILL of the worker holding every job (stalled on the model) to results.jsonl complete, reruns on a second worker.${loadGeneratorBound() ? ' On this few-core machine the load generator (producer + model server) shares the cores with the workers and is the limit: the scaling ratios measure the machine, not the queue.' : ''}`,
        );
      },
    );

  bench
    .command('cli')
    .description('corral --version and --help start-up, installed (dist/ compiled now, as npm pack lays it out) and in a checkout, vs node -e 0')
    .option('--json', 'print only the JSON array of figures on stdout')
    .option('--runs <n>', 'interleaved rounds (median), after one warm-up round', '15')
    .action(async (options: { json?: boolean; runs: string }) => {
      const { runCliBench } = await import('./cli-bench.js');
      const figures = await runCliBench({ runs: positive(options.runs, '--runs'), log });
      print(
        figures,
        options.json === true,
        'cli: wall time of each command as a child process (spawn to exit), median over interleaved rounds in rotating order after one warm-up round; the installed layout is bin/ + package.json + dist/src/ compiled from this checkout (no src/), node_modules linked; ratio = node -e 0 / corral (below 1: slower than an empty node).',
      );
    });
}

/** The tool wiring `corral eval` uses (startToolRuntime + in-process MCP sessions), for the runner benches. */
async function openEvalTools(environment: Environment, options: { backend: 'docker' | 'process'; dataDir: string; image: string }): Promise<BenchToolRuntime> {
  const config = loadConfig({ flags: { backend: options.backend, dataDir: options.dataDir, image: options.image } });
  const { runtime, tools } = await openEnvironmentTools(environment, config, { log });
  return {
    tools,
    backend: runtime.backend,
    sandboxesCreated: () => runtime.pool.stats().reduce((sum, bucket) => sum + bucket.createdTotal, 0),
    close: () => runtime.close(),
  };
}

export function print(figures: Figure[], json: boolean, method: string): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(figures)}\n`);
    return;
  }
  process.stdout.write(`machine: ${describeMachine()}\nmethod: ${method}\n\n${formatFigures(figures)}\n`);
}

/** --only a,b as a checked subset of `all` (default: all of them). */
function chooseParts<Part extends string>(only: string | undefined, all: readonly Part[]): Part[] {
  if (only === undefined) return [...all];
  const parts = only.split(',').map((part) => part.trim());
  const unknown = parts.filter((part) => !(all as readonly string[]).includes(part));
  if (unknown.length > 0) throw new CorralError('CFG_ERR_INVALID', `--only: unknown part(s) ${unknown.join(', ')}; choose from ${all.join(', ')}`);
  return parts as Part[];
}

function positive(text: string, flag: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new CorralError('CFG_ERR_INVALID', `${flag} must be a whole number >= 1, got ${text}`);
  return value;
}

/** --data-dir, else CORRAL_DATA_DIR, via the config loader so the error names both. */
function requireDataDir(flag: string | undefined): string {
  const dataDir = loadConfig({ flags: { dataDir: flag } }).data.dataDir;
  if (!dataDir) throw new CorralError('CFG_ERR_INVALID', 'this benchmark needs the evaluation data: pass --data-dir DIR or set CORRAL_DATA_DIR');
  return dataDir;
}
