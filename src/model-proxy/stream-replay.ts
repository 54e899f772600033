/**
 * An answer that is already whole (upstream answered in one body) written through a dialect's stream writer: one
 * delta for the reasoning, one for the text and one per tool call, so a replayed answer and a streamed one take the
 * same path and give the same event order.
 */
import type { StreamDelta, StreamEvent, StreamWriter, UpstreamAnswer } from './dialect.js';

export function answerDeltas(message: UpstreamAnswer['turn']['message']): StreamDelta[] {
  const deltas: StreamDelta[] = [];
  if (message.reasoning_content) deltas.push({ type: 'reasoning', text: message.reasoning_content });
  if (message.content) deltas.push({ type: 'text', text: message.content });
  (message.tool_calls ?? []).forEach((call, index) =>
    deltas.push({ type: 'tool-call', index, id: call.id, name: call.function.name, arguments: call.function.arguments }),
  );
  return deltas;
}

export function replayAnswer(writer: StreamWriter, answer: UpstreamAnswer): StreamEvent[] {
  const events = writer.start();
  for (const delta of answerDeltas(answer.turn.message)) events.push(...writer.write(delta));
  events.push(...writer.finish(answer));
  return events;
}

/** The start of a replayed answer: its usage is known up front. */
export const replayStart = (answer: UpstreamAnswer) => ({
  id: answer.id,
  created: answer.created,
  upstreamId: typeof answer.body['id'] === 'string' ? answer.body['id'] : undefined,
  upstreamModel: typeof answer.body['model'] === 'string' ? answer.body['model'] : undefined,
  usage: answer.turn.usage,
});
