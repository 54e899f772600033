/**
 * runner.humaneval.seconds: the 164 HumanEval reference solutions graded through the runner (oracle agent,
 * python-code environment, Docker sandboxes with reuse: 'reset', in-process MCP), from a cold pool to the last
 * score. Peer in the same run: the naive way, one `docker run --rm <image> python3 -c <solution + tests>` per
 * problem at the same concurrency, running the very harness the tests_pass rubric runs.
 */
import { randomUUID } from 'node:crypto';
import PQueue from 'p-queue';
import { builtInAgents } from '../src/runner/agents/baseline/baseline-agents.js';
import type { Environment, Example } from '../src/runner/contract/environment.js';
import { buildPythonHarness, harnessTestsFromInfo, sentinelLine } from '../src/runner/rubrics/python-test-harness.js';
import { runEvaluation } from '../src/runner/scheduler/run-evaluation.js';
import { type Figure, round } from './figure.js';
import { execFileAsync } from './measure.js';
import type { OpenBenchTools } from './runner-bench-tools.js';

export interface HumanEvalBenchOptions {
  environment: Environment;
  examples: readonly Example[];
  openTools: OpenBenchTools;
  image: string;
  concurrency: number;
  log: (line: string) => void;
}

interface BatchResult {
  seconds: number;
  passed: number;
  errored: number;
}

async function gradeThroughRunner(options: HumanEvalBenchOptions): Promise<BatchResult> {
  const runtime = await options.openTools(options.environment, { backend: 'docker' });
  try {
    const startedAt = performance.now();
    let firstError: string | undefined;
    const progress = await runEvaluation({
      environment: options.environment,
      agent: builtInAgents['oracle']!(),
      tools: runtime.tools,
      examples: options.examples,
      rolloutsPerExample: 1,
      concurrency: options.concurrency,
      abortSignal: new AbortController().signal,
      onGroup: (records) => {
        for (const record of records) if (record.error) firstError ??= `${record.example_id}: ${record.error.code}: ${record.error.message}`;
      },
    });
    const seconds = (performance.now() - startedAt) / 1000;
    options.log(
      `humaneval runner: ${round(seconds, 1)} s, ${progress.rewardSum}/${progress.done} passed, ${progress.errored} errored, ${runtime.sandboxesCreated()} containers created${firstError ? ` (first error: ${firstError})` : ''}`,
    );
    return { seconds, passed: progress.rewardSum, errored: progress.errored };
  } finally {
    await runtime.close();
  }
}

async function gradeWithDockerRun(options: HumanEvalBenchOptions): Promise<BatchResult> {
  const queue = new PQueue({ concurrency: options.concurrency });
  const result: BatchResult = { seconds: 0, passed: 0, errored: 0 };
  const startedAt = performance.now();
  await Promise.all(
    options.examples.map((example) =>
      queue.add(async () => {
        const tests = harnessTestsFromInfo(example.info);
        if (!tests || typeof example.answer !== 'string') return void result.errored++;
        const nonce = randomUUID();
        const program = buildPythonHarness(example.answer, tests, nonce);
        const { stdout } = await execFileAsync('docker', ['run', '--rm', '--network', 'none', options.image, 'python3', '-c', program], {
          maxBuffer: 8 << 20,
          timeout: 60_000,
        }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
        if (stdout.split('\n').some((line) => line.trim() === sentinelLine(nonce))) result.passed++;
      }),
    ),
  );
  result.seconds = (performance.now() - startedAt) / 1000;
  options.log(`humaneval docker run: ${round(result.seconds, 1)} s, ${result.passed}/${options.examples.length} passed`);
  return result;
}

export async function humanEvalFigures(options: HumanEvalBenchOptions): Promise<Figure[]> {
  options.log(`humaneval: ${options.examples.length} problems at concurrency ${options.concurrency}, runner first, then docker run`);
  const ours = await gradeThroughRunner(options);
  const peer = await gradeWithDockerRun(options);
  return [
    {
      name: 'runner.humaneval.seconds',
      value: round(ours.seconds, 2),
      unit: 's',
      peer: `docker run per problem (concurrency ${options.concurrency})`,
      peerValue: round(peer.seconds, 2),
      ratio: round(peer.seconds / ours.seconds, 1),
      target: '<= 20',
    },
    {
      name: 'runner.humaneval.passed',
      value: ours.passed,
      unit: 'problems',
      peer: 'docker run per problem',
      peerValue: peer.passed,
      ratio: round(ours.passed / Math.max(1, peer.passed), 3),
      target: `${options.examples.length} (reference solutions), 0 errored (${ours.errored})`,
    },
  ];
}
