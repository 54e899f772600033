/**
 * tests_pass: 1 when the rollout's solution passes the problem's tests inside the rollout's own sandbox, else 0.
 * Runs through the rollout's tools only (read_file, write_file, bash), so the same rubric works against a local
 * or remote MCP server. Faults that say nothing about the solution (the harness cannot be written, python3 is
 * missing from the sandbox) throw RUBRIC_ERR_TOOL_FAILED: the rollout is errored, never scored 0.
 */
import { randomUUID } from 'node:crypto';
import { CorralError } from '../../core/errors.js';
import type { ToolOutcome } from '../contract/tool-access.js';
import { booleanField, numberField, stringField } from '../environments/tool-outcome-fields.js';
import { buildPythonHarness, harnessTestsFromInfo, sentinelLine } from './python-test-harness.js';
import type { RubricFunction } from './rubric.js';
import { findSolution } from './solution-source.js';

export interface TestsPassOptions {
  /** Default 1. */
  weight?: number;
  /** Wall-clock limit for the test program, enforced with coreutils `timeout` (default 10). */
  timeoutSeconds?: number;
  /** Default 'solution.py', relative to the workspace. */
  solutionPath?: string;
  /** Default '_corral_harness.py': a name an agent is unlikely to use for its own files. */
  harnessPath?: string;
}

export function testsPassRubric(options: TestsPassOptions = {}): RubricFunction {
  const timeoutSeconds = options.timeoutSeconds ?? 10;
  const solutionPath = options.solutionPath ?? 'solution.py';
  const harnessPath = options.harnessPath ?? '_corral_harness.py';
  return {
    name: 'tests_pass',
    weight: options.weight ?? 1,
    // It runs the tests in the rollout's sandbox: a saved trajectory cannot be re-scored with it.
    readsSandbox: true,
    async score({ example, trajectory, tools, abortSignal, rawAnswer }) {
      const tests = harnessTestsFromInfo(example.info);
      if (tests === null) throw new CorralError('ENV_ERR_DATASET_INVALID', `example ${example.id} has no usable tests in info (format, tests, entry_point)`);
      // The fenced reply as the agent wrote it (the environment's parser may already have unwrapped trajectory.answer).
      const solution = await findSolution(tools, solutionPath, rawAnswer === undefined ? trajectory.answer : rawAnswer, abortSignal);
      if (solution === null) return 0;
      const nonce = randomUUID();
      const written = await tools.call('write_file', { path: harnessPath, content: buildPythonHarness(solution.code, tests, nonce) }, { abortSignal });
      if (written.isError) throw new CorralError('RUBRIC_ERR_TOOL_FAILED', `could not write the test harness ${harnessPath}: ${written.text.slice(0, 300)}`);
      // -k: a solution that ignores SIGTERM is killed 2 s later; the tool's own limit is a further backstop.
      const command = `timeout -k 2 ${timeoutSeconds} python3 ${harnessPath}`;
      const run = await tools.call('bash', { command, timeout_s: timeoutSeconds + 5 }, { abortSignal, timeoutMs: (timeoutSeconds + 15) * 1000 });
      return testRunPassed(run, sentinelLine(nonce)) ? 1 : 0;
    },
  };
}

/** Pass = exit status 0, not timed out, and the sentinel on stdout (so exit(0) before the asserts fails). */
export function testRunPassed(run: ToolOutcome, sentinel: string): boolean {
  const structured = run.structuredContent;
  const exitCode = numberField(structured, ['exit_code', 'exitCode', 'returncode']);
  const stdout = stringField(structured, ['stdout']) ?? run.text;
  const stderr = stringField(structured, ['stderr']) ?? run.text;
  if (exitCode === 127 && /(python3|timeout)[^\n]*not found|No such file or directory/i.test(stderr) && !stderr.includes('Traceback')) {
    throw new CorralError('RUBRIC_ERR_TOOL_FAILED', `the sandbox cannot run the tests (exit 127): ${stderr.slice(0, 300)}`);
  }
  if (booleanField(structured, ['timed_out', 'timedOut']) === true) return false;
  const sentinelSeen = stdout.split('\n').some((line) => line.trim() === sentinel);
  // Without a structured exit code (another server's shape), rely on isError plus the sentinel.
  return sentinelSeen && (exitCode === undefined ? !run.isError : exitCode === 0);
}
