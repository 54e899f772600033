import { afterEach, describe, expect, it } from 'vitest';
import { python3Available } from '../../../helpers/test-gates.js';
import { CorralError } from '../../../../src/core/errors.js';
import type { Example } from '../../../../src/runner/contract/environment.js';
import type { ToolOutcome } from '../../../../src/runner/contract/tool-access.js';
import { loadCodeProblems } from '../../../../src/runner/environments/python-code/code-dataset.js';
import { buildPythonHarness, harnessTestsFromInfo, sentinelLine } from '../../../../src/runner/rubrics/python-test-harness.js';
import { lastCodeBlock } from '../../../../src/runner/rubrics/solution-source.js';
import { testRunPassed, testsPassRubric } from '../../../../src/runner/rubrics/tests-pass-rubric.js';
import { FakeWorkspaceTools } from '../agents/baseline/baseline-fake-workspace-tools.js';

const fixtures = new URL('../../../fixtures/code/', import.meta.url).pathname;
const [humanEval] = loadCodeProblems(`${fixtures}humaneval-tiny.jsonl`);
const [, mbppWithSetup] = loadCodeProblems(`${fixtures}mbpp-tiny.jsonl`);
const [sanitized] = loadCodeProblems(`${fixtures}sanitized-mbpp-tiny.json`);
const python3Works = python3Available();

describe('python test harness text', () => {
  it('HumanEval: solution, then the check() source, then check(entry_point), then the sentinel', () => {
    const harness = buildPythonHarness('def add_pair(a, b):\n    return a + b\n', harnessTestsFromInfo(humanEval!.info)!, 'n0nce');
    const order = ['def add_pair(a, b):', 'def check(candidate):', 'check(add_pair)', 'CORRAL_ALL_TESTS_PASSED n0nce'].map((text) => harness.indexOf(text));
    expect(order.every((position) => position > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(harness).toContain('_corral_os.dup2(2, 1)');
  });

  it("MBPP: runs test_setup_code after the solution (it may use the solution's classes), then the asserts", () => {
    const harness = buildPythonHarness(String(mbppWithSetup!.answer), harnessTestsFromInfo(mbppWithSetup!.info)!, 'n');
    const order = ['class Box:', 'sample = Box(2, 5)', 'assert box_area(sample) == 10', 'assert box_area(Box(1, 1)) == 1', sentinelLine('n')].map((text) =>
      harness.indexOf(text),
    );
    expect(order.every((position) => position > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(harness).not.toContain('check(');
    // Challenge tests are kept in info, not run (upstream scores test_list only).
    expect(harness).not.toContain('Box(0, 9)');
  });

  it('sanitized MBPP: test imports come before the solution', () => {
    const harness = buildPythonHarness(String(sanitized!.answer), harnessTestsFromInfo(sanitized!.info)!, 'n');
    expect(harness.indexOf('import math')).toBeLessThan(harness.indexOf('def hypotenuse'));
  });

  it('rejects info without usable tests', () => {
    expect(harnessTestsFromInfo({ format: 'humaneval', tests: 'def check(c): pass' })).toBeNull();
    expect(harnessTestsFromInfo({ format: 'fortran', tests: [] })).toBeNull();
    expect(harnessTestsFromInfo(undefined)).toBeNull();
  });
});

describe('reading a test run', () => {
  const sentinel = sentinelLine('abc');
  const run = (structured: Record<string, unknown> | undefined, text = '', isError = false): ToolOutcome => ({
    text,
    isError,
    ...(structured ? { structuredContent: structured } : {}),
  });

  it('needs exit 0 and the sentinel', () => {
    expect(testRunPassed(run({ stdout: `${sentinel}\n`, stderr: '', exit_code: 0, timed_out: false }), sentinel)).toBe(true);
    expect(testRunPassed(run({ stdout: '', stderr: '', exit_code: 0, timed_out: false }), sentinel)).toBe(false);
    expect(testRunPassed(run({ stdout: `${sentinel}\n`, stderr: '', exit_code: 1, timed_out: false }), sentinel)).toBe(false);
    expect(testRunPassed(run({ stdout: `${sentinel}\n`, stderr: '', exit_code: 0, timed_out: true }), sentinel)).toBe(false);
    expect(testRunPassed(run({ stdout: `${sentinelLine('other')}\n`, exit_code: 0 }), sentinel)).toBe(false);
  });

  it('falls back to isError and the text when a server sends no structured exit code', () => {
    expect(testRunPassed(run(undefined, `${sentinel}\n`), sentinel)).toBe(true);
    expect(testRunPassed(run(undefined, `${sentinel}\n`, true), sentinel)).toBe(false);
    expect(testRunPassed(run({ stdout: `${sentinel}\n`, exitCode: 0 }), sentinel)).toBe(true);
  });

  it('throws RUBRIC_ERR_TOOL_FAILED when the sandbox cannot run python3 at all', () => {
    const missing = run({ stdout: '', stderr: "timeout: failed to run command 'python3': No such file or directory\n", exit_code: 127, timed_out: false });
    expect(() => testRunPassed(missing, sentinel)).toThrow(CorralError);
  });

  it('finds the last python block of a final answer', () => {
    expect(lastCodeBlock('Here:\n```python\nx = 1\n```\nand\n```\ny = 2\n```')).toBe('x = 1\n');
    expect(lastCodeBlock('```\ny = 2\n```')).toBe('y = 2\n');
    expect(lastCodeBlock('no code')).toBeNull();
    expect(lastCodeBlock(null)).toBeNull();
  });
});

describe.skipIf(!python3Works)('tests_pass with a local python3 (no sandbox: trusted fixtures only)', () => {
  let workspace: FakeWorkspaceTools | undefined;
  afterEach(() => workspace?.dispose());

  async function score(example: Example, solution: string | null, answer: string | null = null, timeoutSeconds = 10): Promise<number> {
    workspace = new FakeWorkspaceTools();
    if (solution !== null) await workspace.call('write_file', { path: 'solution.py', content: solution });
    const trajectory = { completion: [], answer, events: [], toolCalls: [], turns: 1, tokens: [], failure: null };
    return testsPassRubric({ timeoutSeconds }).score({ example, trajectory, tools: workspace, state: {} });
  }

  it('passes the reference solutions of all three formats', async () => {
    for (const example of [humanEval!, mbppWithSetup!, sanitized!]) expect(await score(example, String(example.answer)), example.id).toBe(1);
  });

  it('fails a wrong solution and a missing one', async () => {
    expect(await score(humanEval!, 'def add_pair(a, b):\n    return a - b\n')).toBe(0);
    expect(await score(humanEval!, null)).toBe(0);
  });

  it('fails a solution that exits with status 0 before or during the tests', async () => {
    expect(await score(humanEval!, 'import sys\nsys.exit(0)\n')).toBe(0);
    expect(await score(humanEval!, 'import os\ndef add_pair(a, b):\n    os._exit(0)\n')).toBe(0);
    expect(await score(mbppWithSetup!, 'raise SystemExit\n')).toBe(0);
  });

  it('passes a correct solution that prints a lot and has a main block', async () => {
    const noisy = 'print("x" * 200000)\ndef add_pair(a, b):\n    print("adding", a, b)\n    return a + b\nif __name__ == "__main__":\n    input()\n';
    expect(await score(humanEval!, noisy)).toBe(1);
  });

  it("fails a solution that never ends: the harness's own timeout ends it (exit 124), before the tool call's limit would", async () => {
    expect(await score(humanEval!, 'def add_pair(a, b):\n    while True:\n        pass\n', null, 1)).toBe(0);
    // The fake bash kills at timeout_s and reports timed_out; GNU timeout exits 124 first when the rubric wraps the run.
    expect(workspace!.bashOutcomes.map((outcome) => outcome.structuredContent)).toEqual([expect.objectContaining({ exit_code: 124, timed_out: false })]);
  });

  it("takes the final answer's code block when solution.py is missing", async () => {
    expect(await score(humanEval!, null, 'Done:\n```python\ndef add_pair(a, b):\n    return a + b\n```')).toBe(1);
  });

  it('writes the harness under its own name and runs it with a timeout', async () => {
    await score(humanEval!, String(humanEval!.answer));
    const bash = workspace!.calls.find((call) => call.name === 'bash')!;
    expect(bash.args).toEqual({ command: 'timeout -k 2 10 python3 _corral_harness.py', timeout_s: 15 });
  });
});
