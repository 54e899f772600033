import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toAtif } from '../../../../src/export/atif-from-record.js';
import { readChatCompletion } from '../../../../src/runner/agents/openai/chat-completion-response.js';
import type { ResultRecord } from '../../../../src/runner/trajectory/result-record.js';
import { ResultsWriter } from '../../../../src/runner/trajectory/results-writer.js';

/** A one-turn record as an old run wrote it: token fields in camelCase. */
function legacyRecord(): Record<string, unknown> {
  return {
    version: 1,
    example_id: 'q1',
    rollout_index: 0,
    task: 't',
    prompt: [{ role: 'user', content: 'hi' }],
    completion: [{ role: 'assistant', content: 'yes' }],
    answer: 'yes',
    final_answer: 'yes',
    info: {},
    reward: 1,
    metrics: {},
    group: null,
    error: null,
    turns: 1,
    timing: { generation_ms: 1, scoring_ms: 1, total_ms: 2, tool_calls: [] },
    events: [{ type: 'model-response', atMs: 1, turn: 1, durationMs: 1 }],
    tokens: [{ turn: 1, promptTokenIds: [1, 2], completionTokenIds: [3, 4], completionLogprobs: [-0.5, -0.25] }],
    truncated: false,
    usage: null,
    attempts: 1,
  };
}

describe('token fields are snake_case in records, and old camelCase records still read', () => {
  let directory: string;
  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'corral-token-spelling-'));
  });
  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('records what a vLLM reply carries under prompt_token_ids, completion_token_ids and completion_logprobs', () => {
    const body = {
      prompt_token_ids: [7, 8],
      choices: [{ message: { role: 'assistant', content: 'x' }, finish_reason: 'stop', token_ids: [9], logprobs: { content: [{ logprob: -0.125 }] } }],
    };
    expect(readChatCompletion(body, 1).tokens).toEqual({ prompt_token_ids: [7, 8], completion_token_ids: [9], completion_logprobs: [-0.125] });
  });

  it('reads an old results.jsonl in the current spelling', async () => {
    await writeFile(join(directory, 'results.jsonl'), `${JSON.stringify(legacyRecord())}\n`);
    const [record] = ResultsWriter.readRecords(directory);
    expect(record!.tokens).toEqual([{ turn: 1, prompt_token_ids: [1, 2], completion_token_ids: [3, 4], completion_logprobs: [-0.5, -0.25] }]);
  });

  it('converts an old record to ATIF with its token metrics', () => {
    const atif = toAtif(legacyRecord() as unknown as ResultRecord, { agent: { name: 'openai', version: '0' }, usesModel: true });
    const step = atif.steps.find((candidate) => candidate.source === 'agent');
    expect(step?.metrics).toMatchObject({ prompt_token_ids: [1, 2], completion_token_ids: [3, 4], logprobs: [-0.5, -0.25] });
  });
});
