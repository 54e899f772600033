/**
 * What the viewer keeps in memory per rollout: the fields its table sorts and filters on and its summary counts,
 * never the conversation (read back by line offsets when a rollout is opened). About 300 bytes a rollout.
 */
import type { ResultRecord } from '../runner/trajectory/result-record.js';

export interface RolloutRow {
  /** Index of the record in results.jsonl (0-based, over non-blank lines): the rollout's address in the API. */
  line: number;
  example_id: string;
  rollout_index: number;
  reward: number | null;
  metrics: Record<string, number>;
  turns: number;
  tool_calls: number;
  error: { code: string; boundary: string; message: string } | null;
  truncated: boolean;
  usage: ResultRecord['usage'];
  group: ResultRecord['group'];
  /** total_ms and one entry per timed phase (model, tools, scoring, and a terminal trial's own phases). */
  timing: Record<string, number>;
  /** Lower-cased text the table's free-text filter searches: example id, final answer head, error code and message. */
  haystack: string;
}

/** Why a line of results.jsonl is not a rollout the viewer can show (counted and reported, never fatal). */
export interface BadLine {
  line: number;
  reason: string;
}

const MESSAGE_KEEP = 300;
const ANSWER_KEEP = 200;

export function rolloutRow(record: ResultRecord, line: number): RolloutRow {
  const error = record.error
    ? { code: record.error.code, boundary: String(record.error.boundary ?? 'unknown'), message: record.error.message.slice(0, MESSAGE_KEEP) }
    : null;
  const answer = typeof record.final_answer === 'string' ? record.final_answer.slice(0, ANSWER_KEEP) : '';
  return {
    line,
    example_id: String(record.example_id),
    rollout_index: record.rollout_index ?? 0,
    reward: typeof record.reward === 'number' ? record.reward : null,
    metrics: record.metrics ?? {},
    turns: record.turns ?? 0,
    tool_calls: record.timing?.tool_calls?.length ?? 0,
    error,
    truncated: record.truncated === true,
    usage: record.usage ?? null,
    group: record.group ?? null,
    timing: phaseTimings(record),
    haystack: `${record.example_id} ${answer} ${error ? `${error.code} ${error.message}` : ''}`.toLowerCase(),
  };
}

/** One line of results.jsonl as a row, or why it is not one (not JSON, not a record, a field of the wrong type). */
export function rolloutRowOf(text: string, line: number): RolloutRow | BadLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { line, reason: `not JSON: ${(error as Error).message}`.slice(0, MESSAGE_KEEP) };
  }
  const problem = recordProblem(value);
  if (problem) return { line, reason: problem };
  try {
    return rolloutRow(value as ResultRecord, line);
  } catch (error) {
    return { line, reason: `malformed record: ${(error as Error).message}`.slice(0, MESSAGE_KEEP) };
  }
}

export function isBadLine(value: RolloutRow | BadLine): value is BadLine {
  return 'reason' in value;
}

/** The fields the row reads, checked for type: anything else in a record is the writer's business. */
export function recordProblem(value: unknown): string | null {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return 'not a JSON object';
  const record = value as Record<string, unknown>;
  if (typeof record.example_id !== 'string' && typeof record.example_id !== 'number') return 'no example_id';
  if (record.rollout_index !== undefined && !Number.isInteger(record.rollout_index)) return 'rollout_index is not an integer';
  if (record.reward !== undefined && record.reward !== null && typeof record.reward !== 'number') return 'reward is not a number';
  const error = record.error as Record<string, unknown> | null | undefined;
  if (error !== undefined && error !== null && (typeof error !== 'object' || typeof error.code !== 'string' || typeof error.message !== 'string'))
    return 'error is not {code, boundary, message}';
  if (record.metrics !== undefined && record.metrics !== null && (typeof record.metrics !== 'object' || Array.isArray(record.metrics)))
    return 'metrics is not an object';
  return null;
}

/** model: the model's response times summed; tools: the tool calls' durations summed; plus any recorded phases. */
function phaseTimings(record: ResultRecord): Record<string, number> {
  const timing = record.timing ?? { generation_ms: 0, scoring_ms: 0, total_ms: 0, tool_calls: [] };
  const modelMs = (record.events ?? []).reduce((sum, event) => (event.type === 'model-response' ? sum + event.durationMs : sum), 0);
  const result: Record<string, number> = {
    total_ms: timing.total_ms,
    model_ms: modelMs,
    tools_ms: (timing.tool_calls ?? []).reduce((sum, call) => sum + call.durationMs, 0),
    scoring_ms: timing.scoring_ms,
  };
  const phases = (timing as { phases?: Record<string, unknown> }).phases;
  for (const [name, value] of Object.entries(phases ?? {})) if (typeof value === 'number') result[name] = value;
  return result;
}

/** A row in the shape summarise() and passAtKByK() read (they touch only these fields). */
export function rowAsRecord(row: RolloutRow): ResultRecord {
  return {
    example_id: row.example_id,
    rollout_index: row.rollout_index,
    reward: row.reward,
    metrics: row.metrics,
    error: row.error,
    truncated: row.truncated,
    usage: row.usage,
  } as unknown as ResultRecord;
}
