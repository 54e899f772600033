/** HumanEval records (task_id, prompt, canonical_solution, test, entry_point) as python-code examples. */
import type { Example } from '../../contract/environment.js';
import { type DatasetRecord, requireString } from '../jsonl-records.js';

export function humanEvalExample(record: DatasetRecord, where: string): Example {
  const taskId = requireString(record, 'task_id', where);
  const prompt = requireString(record, 'prompt', where);
  const entryPoint = requireString(record, 'entry_point', where);
  return {
    id: taskId,
    prompt: [
      'Complete this Python function so that it passes hidden unit tests.',
      '',
      '```python',
      prompt.trimEnd(),
      '```',
      '',
      `Write the complete function \`${entryPoint}\` (signature, body, and any imports or helpers it needs) to solution.py.`,
    ].join('\n'),
    // The upstream harness runs prompt + completion, so the reference program is the same concatenation.
    answer: prompt + requireString(record, 'canonical_solution', where),
    info: {
      format: 'humaneval',
      task_id: taskId,
      entry_point: entryPoint,
      tests: requireString(record, 'test', where),
      test_imports: [],
      test_setup_code: '',
      stub: `${prompt.trimEnd()}\n    pass\n`,
    },
  };
}
