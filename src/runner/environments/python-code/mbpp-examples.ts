/**
 * MBPP records as python-code examples: the full set (mbpp.jsonl: text, code, task_id, test_list,
 * test_setup_code, challenge_test_list) and the sanitized subset (sanitized-mbpp.json: prompt, code, task_id,
 * test_imports, test_list). A description alone does not pin down the function's name or signature, so the
 * prompt shows the first test, as is usual practice.
 */
import { CorralError } from '../../../core/errors.js';
import type { Example } from '../../contract/environment.js';
import { type DatasetRecord, requireString, stringList } from '../jsonl-records.js';

export function mbppExample(record: DatasetRecord, where: string, format: 'mbpp' | 'mbpp-sanitized'): Example {
  const taskId = requireString(record, 'task_id', where);
  const description = requireString(record, format === 'mbpp' ? 'text' : 'prompt', where);
  const code = requireString(record, 'code', where);
  const tests = stringList(record.test_list);
  if (tests.length === 0) throw new CorralError('ENV_ERR_DATASET_INVALID', `${where}: field "test_list" must be a non-empty list of strings`);
  const entryPoint = testedFunction(code, tests[0]!);
  const signature = new RegExp(`^[ \\t]*def\\s+${entryPoint}\\s*\\([^)]*\\)[^:]*:`, 'm').exec(code)?.[0]?.trim();
  return {
    id: `${format}/${taskId}`,
    prompt: [
      description.trim(),
      '',
      'Your function must work with tests like this one:',
      '```python',
      tests[0]!,
      '```',
      '',
      'Write your solution to solution.py.',
    ].join('\n'),
    answer: code,
    info: {
      format,
      task_id: taskId,
      entry_point: entryPoint,
      tests,
      test_imports: stringList(record.test_imports),
      test_setup_code: typeof record.test_setup_code === 'string' ? record.test_setup_code : '',
      challenge_tests: stringList(record.challenge_test_list),
      // A signature-only stub, e.g. for an agent that must score 0.
      stub: signature === undefined ? `def ${entryPoint}(*args, **kwargs):\n    pass\n` : `${signature}\n    pass\n`,
    },
  };
}

/** The function the tests call: the first function the reference defines that the first test calls. */
export function testedFunction(code: string, firstTest: string): string {
  const defined = [...code.matchAll(/^[ \t]*def\s+([A-Za-z_]\w*)\s*\(/gm)].map((match) => match[1]!);
  const called = defined.find((name) => new RegExp(`\\b${name}\\s*\\(`).test(firstTest));
  if (called !== undefined) return called;
  // Otherwise the first call in the assert that is not a builtin-looking helper.
  const firstCall = /assert\s+(?:not\s+)?\(?\s*(?:(?:set|sorted|list|tuple|round|abs|math\.isclose)\s*\(\s*)*([A-Za-z_]\w*)\s*\(/.exec(firstTest)?.[1];
  return firstCall ?? defined[0] ?? 'solution';
}
