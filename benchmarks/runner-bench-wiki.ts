/**
 * runner.wiki.rollouts_per_s: wiki-search rollouts through runEvaluation, all in flight at once, with the real
 * OpenAIAgent talking HTTP to a scripted model (a child process) that answers instantly: 4 tool calls over
 * in-process MCP (search_pages, view_sections, read_section, read_section) and an answer per rollout. So the
 * figure is the runner's own cost: scheduling, the agent loop, MCP sessions, recording and writing results.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Agent } from '../src/runner/agents/agent.js';
import { OpenAIAgent } from '../src/runner/agents/openai/openai-agent.js';
import type { Environment, Example } from '../src/runner/contract/environment.js';
import type { ToolSessionFactory } from '../src/runner/contract/tool-session.js';
import { runEvaluation } from '../src/runner/scheduler/run-evaluation.js';
import type { ResultRecord } from '../src/runner/trajectory/result-record.js';
import { ResultsWriter } from '../src/runner/trajectory/results-writer.js';
import { type Figure, round } from './figure.js';
import { median } from './measure.js';
import { ChildWorker } from './load/child-worker.js';
import { OpenAIPackageAgent } from './peers/openai-package-agent.js';

export interface WikiRolloutOptions {
  environment: Environment;
  examples: readonly Example[];
  tools: ToolSessionFactory;
  /** Rollouts per timed run; all of them in flight at once. */
  rollouts: number;
  repeats: number;
  log: (line: string) => void;
}

const EXPECTED_TOOL_CALLS = 4;
/** The first few hundred rollouts run mostly unoptimised code. */
const WARMUP_ROLLOUTS = 256;

interface TimedRun {
  rolloutsPerSecond: number;
  /** This process's CPU time (user + system) per rollout: steadier than wall time on a shared machine. */
  cpuMsPerRollout: number;
  errored: number;
  offScript: number;
  firstError?: string;
}

async function timedRun(agent: Agent, options: WikiRolloutOptions, rollouts: number): Promise<TimedRun> {
  const examples = Array.from({ length: rollouts }, (_, index) => options.examples[index % options.examples.length]!).map((example, index) => ({
    ...example,
    id: `${example.id}#${index}`,
  }));
  const directory = mkdtempSync(join(tmpdir(), 'corral-runner-bench-'));
  const writer = ResultsWriter.open(directory);
  const run: TimedRun = { rolloutsPerSecond: 0, cpuMsPerRollout: 0, errored: 0, offScript: 0 };
  const check = (record: ResultRecord) => {
    if (record.error) run.firstError ??= `${record.error.code}: ${record.error.message}`;
    else if (record.metrics['tool_calls'] !== EXPECTED_TOOL_CALLS) run.offScript++;
  };
  try {
    const startedAt = performance.now();
    const cpuBefore = process.cpuUsage();
    const progress = await runEvaluation({
      environment: options.environment,
      agent,
      tools: options.tools,
      examples,
      rolloutsPerExample: 1,
      concurrency: rollouts,
      abortSignal: new AbortController().signal,
      onGroup: (records) => {
        records.forEach(check);
        writer.append(records);
      },
    });
    run.rolloutsPerSecond = progress.done / ((performance.now() - startedAt) / 1000);
    const cpu = process.cpuUsage(cpuBefore);
    run.cpuMsPerRollout = (cpu.user + cpu.system) / 1000 / Math.max(1, progress.done);
    run.errored = progress.errored + (rollouts - progress.done);
    return run;
  } finally {
    writer.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

export async function wikiRolloutFigures(options: WikiRolloutOptions): Promise<Figure[]> {
  const { worker, ready } = await ChildWorker.start('./scripted-wiki-model.ts');
  try {
    const baseURL = String(ready.baseURL);
    const agent = new OpenAIAgent({ model: 'scripted-wiki', baseURL, apiKey: 'EMPTY' });
    const peer = new OpenAIPackageAgent({ model: 'scripted-wiki', baseURL, apiKey: 'EMPTY' });
    await timedRun(agent, options, WARMUP_ROLLOUTS);
    await timedRun(peer, options, WARMUP_ROLLOUTS);
    // Runner and peer alternate, so load from other processes on the machine falls on both alike.
    const runs: TimedRun[] = [];
    const peerRuns: TimedRun[] = [];
    for (let repeat = 0; repeat < options.repeats; repeat++) {
      for (const [label, subject, into] of [
        ['runner', agent, runs],
        ['openai package', peer, peerRuns],
      ] as const) {
        const run = await timedRun(subject, options, options.rollouts);
        into.push(run);
        options.log(
          `wiki rollouts (${label}): run ${repeat + 1}/${options.repeats}: ${Math.round(run.rolloutsPerSecond)} rollouts/s (${round(run.cpuMsPerRollout, 2)} ms CPU each in this process), ${run.errored} errored, ${run.offScript} off script${run.firstError ? ` (first: ${run.firstError})` : ''}`,
        );
      }
    }
    const errors = Math.max(...runs.map((run) => run.errored + run.offScript));
    return [
      {
        name: 'runner.wiki.rollouts_per_s',
        value: round(median(runs.map((run) => run.rolloutsPerSecond)), 1),
        unit: 'rollouts/s',
        target: `>= 300 (${options.rollouts} in flight, 4 tool calls + 5 model calls each; model HTTP over undici)`,
      },
      {
        name: 'runner.wiki.cpu_ms_per_rollout',
        value: round(median(runs.map((run) => run.cpuMsPerRollout)), 2),
        unit: 'ms',
        target: 'lower than the openai package peer',
      },
      {
        name: 'runner.wiki.openai_package_rollouts_per_s',
        value: round(median(peerRuns.map((run) => run.rolloutsPerSecond)), 1),
        unit: 'rollouts/s',
        target: 'peer: the same loop with the openai package doing its own HTTP (its fetch, retries, timeout)',
      },
      {
        name: 'runner.wiki.openai_package_cpu_ms_per_rollout',
        value: round(median(peerRuns.map((run) => run.cpuMsPerRollout)), 2),
        unit: 'ms',
        target: 'peer',
      },
      { name: 'runner.wiki.inflight_errors', value: errors, unit: 'rollouts', target: '0' },
    ];
  } finally {
    await worker.stop();
  }
}
