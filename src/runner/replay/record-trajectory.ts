/**
 * A saved record read back as what produced it: the example (id, user prompt, gold answer, info) and the
 * trajectory (messages, raw final text, events, tool timings, tokens). The raw final text is the last assistant
 * message when it called no tool, as the agents record their answer; `final_answer` in a record is already parsed.
 */
import type { Example } from '../contract/environment.js';
import type { ChatMessage } from '../trajectory/messages.js';
import type { ResultRecord } from '../trajectory/result-record.js';
import type { Trajectory } from '../trajectory/trajectory.js';

export function exampleOfRecord(record: ResultRecord): Example {
  // The record's prompt starts with the environment's system prompt; the example is what came after it.
  const prompt = record.prompt.filter((message) => message.role !== 'system');
  return { id: record.example_id, prompt, ...(record.answer === null ? {} : { answer: record.answer }), info: record.info ?? {} };
}

export function trajectoryOfRecord(record: ResultRecord): Trajectory {
  return {
    completion: record.completion,
    answer: rawFinalText(record.completion),
    events: record.events ?? [],
    toolCalls: record.timing?.tool_calls ?? [],
    turns: record.turns,
    tokens: record.tokens ?? [],
    failure: record.error,
    truncated: record.truncated === true,
    usage: record.usage ?? null,
  };
}

export function rawFinalText(completion: readonly ChatMessage[]): string | null {
  const last = completion.at(-1);
  if (last?.role !== 'assistant' || (last.tool_calls?.length ?? 0) > 0) return null;
  return typeof last.content === 'string' ? last.content : null;
}
