import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dataDirectoryWith } from '../../../helpers/test-gates.js';
import { CorralError } from '../../../../src/core/errors.js';
import { codeDataset, loadCodeProblems } from '../../../../src/runner/environments/python-code/code-dataset.js';
import { testedFunction } from '../../../../src/runner/environments/python-code/mbpp-examples.js';
import { createPythonCodeEnvironment } from '../../../../src/runner/environments/index.js';

const fixtures = new URL('../../../fixtures/code/', import.meta.url).pathname;
const dataDir = dataDirectoryWith(['humaneval/HumanEval.jsonl', 'mbpp/mbpp.jsonl', 'mbpp/sanitized-mbpp.json']);

describe('code dataset loaders', () => {
  it('HumanEval: prompt shows the signature; answer is prompt + canonical solution; info carries the tests', () => {
    const [first] = loadCodeProblems(`${fixtures}humaneval-tiny.jsonl`);
    expect(first!.id).toBe('Tiny/0');
    expect(first!.prompt).toContain('def add_pair(a: int, b: int) -> int:');
    expect(first!.prompt).toContain('solution.py');
    expect(first!.answer).toBe(
      'def add_pair(a: int, b: int) -> int:\n    """Return the sum of a and b.\n    >>> add_pair(2, 3)\n    5\n    """\n    return a + b\n',
    );
    expect(first!.info).toMatchObject({ format: 'humaneval', entry_point: 'add_pair', test_imports: [], test_setup_code: '' });
    expect(first!.info!.tests).toContain('def check(candidate):');
    expect(first!.info!.stub).toMatch(/"""\n {4}pass\n$/);
  });

  it('MBPP: shows one test for the name and signature; keeps setup code and challenge tests', () => {
    const problems = loadCodeProblems(`${fixtures}mbpp-tiny.jsonl`);
    expect(problems.map((problem) => problem.id)).toEqual(['mbpp/1', 'mbpp/2']);
    expect(problems[0]!.prompt).toContain("assert count_vowels('banana') == 3");
    expect(problems[0]!.prompt).not.toContain("count_vowels('xyz')");
    expect(problems[1]!.info).toMatchObject({
      format: 'mbpp',
      entry_point: 'box_area',
      test_setup_code: 'sample = Box(2, 5)',
      challenge_tests: ['assert box_area(Box(0, 9)) == 0'],
      stub: 'def box_area(box):\n    pass\n',
    });
    expect(problems[1]!.answer).toContain('class Box:');
  });

  it('sanitized MBPP: a JSON array with test imports', () => {
    const [problem] = loadCodeProblems(`${fixtures}sanitized-mbpp-tiny.json`);
    expect(problem!.id).toBe('mbpp-sanitized/3');
    expect(problem!.prompt).toContain('square root of the sum of squares');
    expect(problem!.info).toMatchObject({ format: 'mbpp-sanitized', entry_point: 'hypotenuse', test_imports: ['import math'] });
  });

  it('finds the tested function among several definitions', () => {
    expect(testedFunction('def helper(x):\n    return x\n\ndef main_one(y):\n    return helper(y)', 'assert main_one(3) == 3')).toBe('main_one');
    expect(testedFunction('def first(x): pass', 'assert set(other(1)) == set()')).toBe('other');
  });

  it('rejects unknown formats and malformed lines with the file and line', () => {
    const directory = mkdtempSync(join(tmpdir(), 'corral-code-'));
    writeFileSync(join(directory, 'odd.jsonl'), '{"question": "?"}\n');
    writeFileSync(join(directory, 'torn.jsonl'), '{"task_id": "a", "prompt": "p", "canonical_solution": "s", "test": "t", "entry_point": "f"}\n{"task_id": \n');
    expect(() => loadCodeProblems(join(directory, 'odd.jsonl'))).toThrow(/unknown code dataset format/);
    const error = (() => {
      try {
        loadCodeProblems(join(directory, 'torn.jsonl'));
      } catch (caught) {
        return caught;
      }
    })();
    expect(CorralError.hasCode(error, 'ENV_ERR_DATASET_INVALID')).toBe(true);
    expect((error as Error).message).toContain('torn.jsonl:2');
  });

  it('reads --dataset, and names the flag or CORRAL_DATA_DIR when nothing is found', () => {
    expect(codeDataset({ args: { dataset: `${fixtures}mbpp-tiny.jsonl` }, dataDir: undefined })).toHaveLength(2);
    expect(() => codeDataset({ args: { dataset: `${fixtures}nope.jsonl` }, dataDir: undefined })).toThrow(/--dataset/);
    expect(() => codeDataset({ args: {}, dataDir: '/nonexistent-data' })).toThrow(/CORRAL_DATA_DIR/);
  });

  it('defines the environment: python, shell and files tools, tests_pass rewards, sandbox reuse by reset', () => {
    const environment = createPythonCodeEnvironment();
    expect(environment.name).toBe('python-code');
    expect(environment.toolsets).toEqual(['python', 'shell', 'files']);
    expect(environment.rubric.map((item) => [item.name, item.weight])).toEqual([
      ['tests_pass', 1],
      ['tool_calls', 0],
      ['turns', 0],
    ]);
    expect(environment.sandbox).toEqual({ reuse: 'reset' });
    expect(environment.systemPrompt).toContain('solution.py');
  });
});

describe.skipIf(!dataDir)('real code datasets under CORRAL_DATA_DIR', () => {
  it.each([
    ['humaneval/HumanEval.jsonl', 164, 'humaneval'],
    ['mbpp/mbpp.jsonl', 974, 'mbpp'],
    ['mbpp/sanitized-mbpp.json', 427, 'mbpp-sanitized'],
  ])('%s has %i problems of format %s', (relative, count, format) => {
    const problems = loadCodeProblems(join(dataDir!, relative));
    expect(problems).toHaveLength(count);
    expect(new Set(problems.map((problem) => problem.id)).size).toBe(count);
    expect(problems.every((problem) => problem.info!.format === format && typeof problem.answer === 'string')).toBe(true);
  });

  it('defaults to HumanEval', () => {
    expect(codeDataset({ args: {}, dataDir })).toHaveLength(164);
  });
});
