/**
 * Runs one assistant turn's tool calls concurrently, as a model that asks for several calls at once expects, and
 * returns the tool messages in the order of the assistant's tool_calls, which is also the order they end up in the
 * recorded completion. The conversation sent next and the trajectory are therefore identical and deterministic,
 * whichever call finishes first.
 */
import { CorralError } from '../../core/errors.js';
import type { ToolAccess } from '../contract/tool-access.js';
import type { ChatMessage, ToolCallRequest } from '../trajectory/messages.js';
import type { TrajectoryRecorder } from '../trajectory/trajectory-recorder.js';
import { readableToolAccess } from './readable-tool-access.js';

export type ToolMessage = Extract<ChatMessage, { role: 'tool' }>;

export interface ExecuteToolCallsInput {
  recorder: TrajectoryRecorder;
  tools: ToolAccess;
  calls: readonly ToolCallRequest[];
  turn: number;
  abortSignal: AbortSignal;
}

/**
 * Unknown tools, malformed arguments and failures inside a tool become isError tool messages. An infrastructure
 * fault in any call cancels its siblings, waits for them to settle (so nothing is recorded after we return), and
 * throws the first fault; a fired abortSignal throws ERR_ABORTED.
 */
export async function executeToolCalls(input: ExecuteToolCallsInput): Promise<ToolMessage[]> {
  const { recorder, calls, turn, abortSignal } = input;
  const tools = readableToolAccess(input.tools);
  const turnController = new AbortController();
  const onAbort = () => turnController.abort(abortSignal.reason);
  abortSignal.addEventListener('abort', onAbort, { once: true });
  let firstFault: { error: unknown } | undefined;
  const settled = await Promise.allSettled(
    calls.map((call) =>
      recorder.callTool(tools, call, turn, turnController.signal).catch((error: unknown) => {
        firstFault ??= { error };
        turnController.abort(error);
        throw error;
      }),
    ),
  ).finally(() => abortSignal.removeEventListener('abort', onAbort));
  if (abortSignal.aborted) throw new CorralError('ERR_ABORTED', 'tool calls were cancelled', { cause: abortSignal.reason });
  if (firstFault) throw firstFault.error;
  const messages = settled.map((result, index): ToolMessage => {
    const outcome = (result as PromiseFulfilledResult<{ text: string }>).value;
    return { role: 'tool', tool_call_id: calls[index]!.id, content: outcome.text };
  });
  putRecordedToolMessagesInCallOrder(recorder, messages);
  return messages;
}

/**
 * recorder.callTool appends each tool message when its call completes, so the recorded tail is in completion order.
 * Replace that tail with the same messages in call order. The recorder has no API for this yet, so this relies on
 * snapshot() returning the live trajectory; it checks the tail is exactly this turn's messages before touching it.
 */
function putRecordedToolMessagesInCallOrder(recorder: TrajectoryRecorder, ordered: ToolMessage[]): void {
  const completion = recorder.snapshot().completion;
  const start = completion.length - ordered.length;
  const tail = completion.slice(start);
  const key = (message: ChatMessage) => (message.role === 'tool' ? `${message.tool_call_id}\u0000${message.content}` : null);
  const expected = ordered.map(key).sort();
  const actual = tail.map(key).sort();
  if (start < 0 || expected.some((value, index) => value !== actual[index])) return;
  completion.splice(start, ordered.length, ...ordered);
}
