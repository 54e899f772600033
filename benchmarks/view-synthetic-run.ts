/**
 * A synthetic run folder for the viewer's tests and benchmark: metadata.json and results.jsonl with `rollouts`
 * records (r per example; every 17th errored, a tool call per rollout, token ids and logprobs on every 10th),
 * deterministic so assertions can recompute what the page must show.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { summarise, summaryMetadata } from '../src/runner/run/run-summary.js';
import type { ResultRecord } from '../src/runner/trajectory/result-record.js';

export interface SyntheticRunOptions {
  rollouts: number;
  rolloutsPerExample?: number;
  /** metadata.json's status; 'running' names this process as the writer. */
  status?: 'complete' | 'running' | 'cancelled';
  env?: string;
  /** Shifts rewards, so two runs of one env differ. */
  seed?: number;
}

export function syntheticRecord(index: number, rolloutsPerExample: number, seed = 0): ResultRecord {
  const exampleIndex = Math.floor(index / rolloutsPerExample);
  const rolloutIndex = index % rolloutsPerExample;
  const errored = index % 17 === 16;
  const correct = (exampleIndex * 7 + rolloutIndex * 3 + seed) % 5 < 2 ? 1 : 0;
  const length = ((exampleIndex * 13 + rolloutIndex + seed) % 100) / 100;
  const callId = `call_${index}`;
  const withTokens = index % 10 === 0;
  return {
    version: 1,
    example_id: `ex-${String(exampleIndex).padStart(6, '0')}`,
    rollout_index: rolloutIndex,
    task: 'synthetic',
    prompt: [
      { role: 'system', content: 'You answer questions.' },
      { role: 'user', content: `Question ${exampleIndex}: what is ${exampleIndex} + 1?` },
    ],
    completion: [
      {
        role: 'assistant',
        content: null,
        reasoning_content: `I should compute ${exampleIndex} + 1.`,
        tool_calls: [{ id: callId, type: 'function', function: { name: 'python', arguments: JSON.stringify({ code: `print(${exampleIndex} + 1)` }) } }],
      },
      { role: 'tool', tool_call_id: callId, content: String(exampleIndex + 1) },
      { role: 'assistant', content: `The answer is ${correct ? exampleIndex + 1 : exampleIndex}.` },
    ],
    answer: String(exampleIndex + 1),
    final_answer: errored ? null : `The answer is ${correct ? exampleIndex + 1 : exampleIndex}.`,
    info: {},
    reward: errored ? null : correct,
    metrics: errored ? {} : { correct, length },
    ...(errored ? {} : { correct, length }),
    group: null,
    error: errored
      ? {
          boundary: index % 2 ? 'model' : 'tool',
          code: index % 2 ? 'MODEL_ERR_HTTP_500' : 'SBX_ERR_TIMEOUT',
          message: `synthetic failure ${index}`,
          transient: index % 2 === 1,
        }
      : null,
    turns: 2,
    timing: {
      generation_ms: 100 + (index % 50),
      scoring_ms: 5,
      total_ms: 120 + (index % 50),
      tool_calls: [{ callId, name: 'python', turn: 1, durationMs: 10 + (index % 7), isError: false }],
    },
    events: [
      { type: 'episode-start', atMs: 0 },
      { type: 'model-response', atMs: 40, turn: 1, durationMs: 40 },
      { type: 'tool-call', atMs: 41, turn: 1, callId, name: 'python' },
      { type: 'tool-result', atMs: 55, callId, durationMs: 14, isError: false },
      { type: 'model-response', atMs: 100, turn: 2, durationMs: 45 },
      { type: 'episode-end', atMs: 120, reason: errored ? 'errored' : 'answered' },
    ],
    tokens: withTokens ? [{ turn: 2, completion_token_ids: [791, 4320, 374, 220], completion_logprobs: [-0.01, -0.2, -1.5, -3.2] }] : null,
    truncated: false,
    usage: { prompt_tokens: 50, completion_tokens: 10 },
    attempts: 1,
  } as ResultRecord;
}

export function writeSyntheticRun(directory: string, options: SyntheticRunOptions): ResultRecord[] {
  const rolloutsPerExample = options.rolloutsPerExample ?? 1;
  mkdirSync(directory, { recursive: true });
  const records: ResultRecord[] = [];
  const lines: string[] = [];
  for (let index = 0; index < options.rollouts; index++) {
    const record = syntheticRecord(index, rolloutsPerExample, options.seed);
    records.push(record);
    lines.push(JSON.stringify(record));
  }
  writeFileSync(join(directory, 'results.jsonl'), lines.length ? `${lines.join('\n')}\n` : '');
  // A finished run's metadata.json carries the summary, as corral eval writes it; a running one has none yet.
  const summary = options.status === 'running' ? {} : summaryMetadata(summarise(records, rolloutsPerExample));
  writeFileSync(join(directory, 'metadata.json'), JSON.stringify({ ...syntheticMetadata(options, rolloutsPerExample), ...summary }));
  return records;
}

export function syntheticMetadata(options: SyntheticRunOptions, rolloutsPerExample: number): Record<string, unknown> {
  return {
    env: options.env ?? 'synthetic',
    model: 'scripted-model',
    agent: 'openai',
    rollouts_per_example: rolloutsPerExample,
    num_examples: Math.ceil(options.rollouts / rolloutsPerExample),
    started_at: '2026-12-01T10:00:00.000Z',
    status: options.status ?? 'complete',
    ...(options.status === 'running' ? { pid: process.pid, hostname: 'synthetic-host' } : { time_ms: 61_000 }),
  };
}
