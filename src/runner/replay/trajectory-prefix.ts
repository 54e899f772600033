/**
 * A saved completion cut at turn K: the prefix (everything before the K-th assistant message, i.e. turns 1..K-1 with
 * their tool results) and the tool calls recorded from turn K on, in order, each with its recorded result. A turn is
 * one assistant message and what followed it up to the next.
 */
import type { ChatMessage, ToolCallRequest } from '../trajectory/messages.js';
import type { ResultRecord } from '../trajectory/result-record.js';

export interface RecordedCall {
  call: ToolCallRequest;
  /** The tool message the call got; null when the record holds none (the rollout ended inside the turn). */
  result: string | null;
  isError: boolean;
}

export interface PrefixTurn {
  /** 1-based. */
  turn: number;
  /** The assistant message, then what followed it (tool results, environment replies) before the next assistant message. */
  messages: ChatMessage[];
  calls: RecordedCall[];
}

export interface SplitTrajectory {
  prefix: PrefixTurn[];
  /** Messages before the first assistant message (none in a rollout the runner wrote; kept if present). */
  leading: ChatMessage[];
  /** The calls of turns K and later, in the order they were made. */
  recordedAfter: RecordedCall[];
}

export function splitAtTurn(record: ResultRecord, fromTurn: number): SplitTrajectory {
  const results = new Map<string, string>();
  for (const message of record.completion) if (message.role === 'tool') results.set(message.tool_call_id, message.content);
  const failed = new Set((record.timing?.tool_calls ?? []).filter((timing) => timing.isError).map((timing) => timing.callId));
  const recorded = (call: ToolCallRequest): RecordedCall => ({ call, result: results.get(call.id) ?? null, isError: failed.has(call.id) });
  const leading: ChatMessage[] = [];
  const prefix: PrefixTurn[] = [];
  const recordedAfter: RecordedCall[] = [];
  let turn = 0;
  for (const message of record.completion) {
    if (message.role === 'assistant') turn++;
    if (turn === 0) leading.push(message);
    else if (turn < fromTurn) {
      if (message.role === 'assistant') prefix.push({ turn, messages: [], calls: (message.tool_calls ?? []).map(recorded) });
      prefix.at(-1)!.messages.push(message);
    } else if (message.role === 'assistant') recordedAfter.push(...(message.tool_calls ?? []).map(recorded));
  }
  return { prefix, leading, recordedAfter };
}

/** JSON arguments compared by value (key order and whitespace ignored); text that is not JSON compares as text. */
export function sameArguments(left: string, right: string): boolean {
  return canonical(left) === canonical(right);
}

function canonical(text: string): string {
  try {
    return JSON.stringify(sortKeys(JSON.parse(text || '{}')));
  } catch {
    return text;
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
  );
}
