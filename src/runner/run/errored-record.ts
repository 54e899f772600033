/**
 * The record of a rollout that never produced one of its own: an executor that threw, a job the worker could not run or refused,
 * or a stored result the producer cannot read. Errored (boundary runner), never scored, so the run counts it as an
 * error and `--resume` redoes it; the producer is never left waiting for a record that cannot come.
 */
import type { ErrorCode } from '../../core/errors.js';
import type { Example } from '../contract/environment.js';
import type { ResultRecord } from '../trajectory/result-record.js';
import { TRAJECTORY_VERSION } from '../trajectory/trajectory.js';

export interface ErroredRolloutIdentity {
  example: Pick<Example, 'id' | 'prompt'> & Partial<Pick<Example, 'answer' | 'info'>>;
  rollout_index: number;
  environment: { name: string };
}

export function erroredRecord(job: ErroredRolloutIdentity, error: { code: ErrorCode; message: string }, attempts: number): ResultRecord {
  const prompt = typeof job.example.prompt === 'string' ? [{ role: 'user' as const, content: job.example.prompt }] : job.example.prompt;
  return {
    version: TRAJECTORY_VERSION,
    example_id: job.example.id,
    rollout_index: job.rollout_index,
    task: job.environment.name,
    prompt,
    completion: [],
    answer: job.example.answer ?? null,
    final_answer: null,
    info: job.example.info ?? {},
    reward: null,
    metrics: {},
    group: null,
    error: { boundary: 'runner', code: error.code, message: error.message, transient: false },
    turns: 0,
    timing: { generation_ms: 0, scoring_ms: 0, total_ms: 0, tool_calls: [] },
    events: [],
    tokens: null,
    truncated: false,
    usage: null,
    attempts,
  };
}
