import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toAtif } from '../../../src/export/atif-from-record.js';
import { atifTrajectoryPath, exampleFolderName, exportRunAtif } from '../../../src/export/atif-run-export.js';
import { validateAtif } from '../../../src/export/atif-validate.js';
import type { ResultRecord } from '../../../src/runner/trajectory/result-record.js';

/** A model rollout: two turns of tool calls (one with broken arguments, one failing in the sandbox), then an answer. */
function modelRecord(): ResultRecord {
  return {
    version: 1,
    example_id: 'HumanEval/7',
    rollout_index: 1,
    task: 'python-code',
    prompt: [
      { role: 'system', content: 'Solve it.' },
      { role: 'user', content: 'Write add(a, b).' },
    ],
    completion: [
      {
        role: 'assistant',
        content: null,
        reasoning_content: 'Test first.',
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'python', arguments: '{"code": "print(1 + 1)"}' } },
          { id: 'call_b', type: 'function', function: { name: 'python', arguments: '{"code": ' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: '2' },
      { role: 'tool', tool_call_id: 'call_b', content: 'Error: tool arguments are not valid JSON' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_c', type: 'function', function: { name: 'python', arguments: '{"code": "x"}' } }] },
      { role: 'assistant', content: 'def add(a, b): return a + b' },
    ],
    answer: 'def add',
    final_answer: 'def add(a, b): return a + b',
    info: { entry_point: 'add' },
    reward: 1,
    metrics: { pass: 1 },
    pass: 1,
    group: { mean: 1, std: 0, size: 2, advantage: 0 },
    error: null,
    turns: 3,
    timing: { generation_ms: 30, scoring_ms: 5, total_ms: 40, tool_calls: [] },
    events: [
      { type: 'episode-start', atMs: 0 },
      { type: 'step-start', atMs: 1, turn: 1 },
      { type: 'model-response', atMs: 10, turn: 1, durationMs: 9 },
      { type: 'tool-call', atMs: 11, turn: 1, callId: 'call_a', name: 'python' },
      { type: 'tool-result', atMs: 12, callId: 'call_a', durationMs: 1, isError: false },
      { type: 'tool-call', atMs: 12, turn: 1, callId: 'call_b', name: 'python' },
      { type: 'tool-result', atMs: 12, callId: 'call_b', durationMs: 0, isError: true },
      { type: 'model-response', atMs: 20, turn: 2, durationMs: 8 },
      { type: 'tool-error', atMs: 21, callId: 'call_c', durationMs: 1, code: 'SBX_ERR_KILLED', message: 'killed' },
      { type: 'model-response', atMs: 30, turn: 3, durationMs: 9 },
      { type: 'score', atMs: 35, durationMs: 5, reward: 1 },
      { type: 'episode-end', atMs: 40, reason: 'answered' },
    ],
    tokens: [
      { turn: 1, prompt_token_ids: [1, 2, 3], completion_token_ids: [11, 12], completion_logprobs: [-0.5, -0.25] },
      { turn: 3, prompt_token_ids: [1, 2, 3, 4], completion_token_ids: [13] },
    ],
    truncated: false,
    usage: { prompt_tokens: 30, completion_tokens: 6, cached_tokens: 2 },
    attempts: 1,
  };
}

const agent = { name: 'openai', version: '0.1.0', modelName: 'gpt-test' };

describe('toAtif', () => {
  it('turns a model rollout into valid ATIF: steps, tool calls, observations, token ids, totals', () => {
    const trajectory = toAtif(modelRecord(), { agent, usesModel: true, sessionId: 'run-1', startedAt: '2026-12-01T10:00:00.000Z' });
    expect(validateAtif(trajectory).problems).toEqual([]);
    expect(trajectory).toMatchObject({ schema_version: 'ATIF-v1.7', session_id: 'run-1', trajectory_id: 'HumanEval/7#1' });
    expect(trajectory.agent).toEqual({ name: 'openai', version: '0.1.0', model_name: 'gpt-test' });
    expect(trajectory.steps.map((step) => [step.step_id, step.source])).toEqual([
      [1, 'system'],
      [2, 'user'],
      [3, 'agent'],
      [4, 'agent'],
      [5, 'agent'],
    ]);
    const [, , first, second, last] = trajectory.steps;
    expect(first).toMatchObject({
      message: '',
      reasoning_content: 'Test first.',
      llm_call_count: 1,
      timestamp: '2026-12-01T10:00:00.010Z',
      extra: { turn: 1 },
    });
    expect(first!.tool_calls).toEqual([
      { tool_call_id: 'call_a', function_name: 'python', arguments: { code: 'print(1 + 1)' } },
      { tool_call_id: 'call_b', function_name: 'python', arguments: {}, extra: { raw_arguments: '{"code": ' } },
    ]);
    expect(first!.observation!.results).toEqual([
      { source_call_id: 'call_a', content: '2' },
      { source_call_id: 'call_b', content: 'Error: tool arguments are not valid JSON', extra: { is_error: true } },
    ]);
    expect(first!.metrics).toEqual({ prompt_token_ids: [1, 2, 3], completion_token_ids: [11, 12], logprobs: [-0.5, -0.25] });
    expect(second!.observation!.results).toEqual([
      { source_call_id: 'call_c', content: null, extra: { is_error: true, error_code: 'SBX_ERR_KILLED', error_message: 'killed' } },
    ]);
    expect(second!.metrics).toBeUndefined();
    expect(last).toMatchObject({ message: 'def add(a, b): return a + b', metrics: { prompt_token_ids: [1, 2, 3, 4], completion_token_ids: [13] } });
    expect(trajectory.final_metrics).toEqual({ total_prompt_tokens: 30, total_completion_tokens: 6, total_cached_tokens: 2, total_steps: 5 });
    const corral = trajectory.extra!['corral'] as Record<string, unknown>;
    expect(corral).toMatchObject({
      example_id: 'HumanEval/7',
      rollout_index: 1,
      reward: 1,
      metrics: { pass: 1 },
      error: null,
      turns: 3,
      final_answer: 'def add(a, b): return a + b',
    });
    expect(Object.keys(corral)).not.toEqual(expect.arrayContaining(['prompt', 'completion', 'events', 'tokens', 'pass']));
  });

  it('writes model-free steps as deterministic dispatches (llm_call_count 0, no metrics, reasoning kept in extra)', () => {
    const record = modelRecord();
    const trajectory = toAtif(record, { agent: { name: 'scripted', version: '0.1.0' }, usesModel: false });
    expect(validateAtif(trajectory).problems).toEqual([]);
    const agentSteps = trajectory.steps.filter((step) => step.source === 'agent');
    expect(agentSteps.every((step) => step.llm_call_count === 0 && step.metrics === undefined && step.reasoning_content === undefined)).toBe(true);
    expect(agentSteps[0]!.extra).toEqual({ turn: 1, reasoning_content: 'Test first.' });
    expect(trajectory.agent.model_name).toBeUndefined();
    expect(trajectory.steps[0]!.timestamp).toBeUndefined();
  });

  it('marks assistant messages of the prompt as copied context and keeps orphan tool results without a reference', () => {
    const record = modelRecord();
    record.prompt.push({ role: 'assistant', content: 'an example answer' }, { role: 'tool', tool_call_id: 'nowhere', content: 'stray' });
    record.tokens = null;
    record.usage = null;
    record.error = { boundary: 'model', code: 'MODEL_ERR_SERVER', message: '500', transient: true };
    const trajectory = toAtif(record, { agent, usesModel: true });
    expect(validateAtif(trajectory).problems).toEqual([]);
    expect(trajectory.steps[2]).toMatchObject({ source: 'agent', message: 'an example answer', is_copied_context: true });
    expect(trajectory.steps[2]!.llm_call_count).toBeUndefined();
    expect(trajectory.steps[2]!.observation!.results).toEqual([{ content: 'stray', extra: { tool_call_id: 'nowhere' } }]);
    expect(trajectory.final_metrics).toEqual({ total_steps: 6 });
    expect((trajectory.extra!['corral'] as Record<string, unknown>)['error']).toMatchObject({ code: 'MODEL_ERR_SERVER' });
  });
});

describe('exportRunAtif', () => {
  let run: string;
  beforeEach(async () => {
    run = await mkdtemp(join(tmpdir(), 'corral-atif-export-'));
  });
  afterEach(async () => {
    await rm(run, { recursive: true, force: true });
  });

  it('writes one validated trajectory.json per record, at the documented path, agent details from metadata.json', async () => {
    const second = { ...modelRecord(), example_id: '../../etc', rollout_index: 0 };
    await writeFile(join(run, 'results.jsonl'), `${JSON.stringify(modelRecord())}\n${JSON.stringify(second)}\n`);
    await writeFile(
      join(run, 'metadata.json'),
      JSON.stringify({ agent: 'openai', model: 'gpt-test', corral_version: '9.9.9', command: { base_url: 'http://x/v1' } }),
    );
    const result = await exportRunAtif(run, { outDirectory: join(run, 'out') });
    expect(result.written.map((entry) => entry.path)).toEqual([
      atifTrajectoryPath(join(run, 'out'), 'HumanEval/7', 1),
      atifTrajectoryPath(join(run, 'out'), '../../etc', 0),
    ]);
    expect(result.written[0]!.path).toBe(join(run, 'out', exampleFolderName('HumanEval/7'), '1', 'trajectory.json'));
    for (const entry of result.written) {
      expect(entry.path.startsWith(join(run, 'out'))).toBe(true);
      const document = JSON.parse(await readFile(entry.path, 'utf8')) as unknown;
      expect(validateAtif(document).problems).toEqual([]);
      expect(document).toMatchObject({ agent: { name: 'openai', version: '9.9.9', model_name: 'gpt-test' }, session_id: run.split('/').pop() });
    }
  });

  it('names example folders safely and distinctly', () => {
    expect(exampleFolderName('q1')).toBe('q1');
    expect(exampleFolderName('HumanEval/7')).toMatch(/^HumanEval_7-[0-9a-f]{8}$/);
    expect(exampleFolderName('HumanEval_7')).toBe('HumanEval_7');
    expect(exampleFolderName('..')).toMatch(/^_-[0-9a-f]{8}$/);
    expect(exampleFolderName('a/b')).not.toBe(exampleFolderName('a:b'));
  });

  it('refuses a folder that is not a run', async () => {
    await expect(exportRunAtif(join(run, 'missing'))).rejects.toMatchObject({ code: 'EXPORT_ERR_RUN_NOT_FOUND' });
  });
});
