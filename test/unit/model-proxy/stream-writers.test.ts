// Each dialect's incremental writer fed a stream as upstream sends it: reasoning and text in several deltas, a
// tool call's arguments in pieces, a second call. The event order is what each CLI's parser requires.
import { describe, expect, it } from 'vitest';
import type { StreamDelta, StreamEvent } from '../../../src/model-proxy/dialect.js';
import { DIALECTS } from '../../../src/model-proxy/dialects.js';
import { answerOf, capturedRequest, eventTypes, toolCall } from './upstream-answers.js';

const context = { query: new URLSearchParams() };
const start = { id: 'abc', created: 1_800_000_000, upstreamId: 'chatcmpl-up', upstreamModel: 'upstream-model' };

/** What upstream streamed, and the same answer whole (as the chunk assembler hands it over at the end). */
const deltas: StreamDelta[] = [
  { type: 'reasoning', text: 'look ' },
  { type: 'reasoning', text: 'first' },
  { type: 'text', text: 'Hel' },
  { type: 'text', text: 'lo.' },
  { type: 'tool-call', index: 0, id: 'call_a', name: 'Bash', arguments: '' },
  { type: 'tool-call', index: 0, arguments: '{"command"' },
  { type: 'tool-call', index: 0, arguments: ':"ls"}' },
  { type: 'tool-call', index: 1, id: 'call_b', name: 'Read', arguments: '{}' },
];
const whole = answerOf({
  role: 'assistant',
  content: 'Hello.',
  reasoning_content: 'look first',
  tool_calls: [toolCall('call_a', 'Bash', { command: 'ls' }), toolCall('call_b', 'Read', {})],
});

function written(name: keyof typeof DIALECTS, body: unknown, routeContext: Parameters<(typeof DIALECTS)['chat']['translateRequest']>[1] = context) {
  const dialect = DIALECTS[name];
  const writer = dialect.streamWriter(dialect.translateRequest(body, routeContext), start);
  const perDelta: StreamEvent[][] = [writer.start(), ...deltas.map((delta) => writer.write(delta))];
  return { perDelta, events: [...perDelta.flat(), ...writer.finish(whole)] };
}

describe('incremental stream writers', () => {
  it('Chat Completions: one chunk per delta, a call’s id and name on its first chunk only, then finish and usage', () => {
    const { events } = written('chat', { model: 'm', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'x' }] });
    const chunks = events.map((event) => event.data as { id: string; choices: { delta: unknown; finish_reason: string | null }[]; usage?: unknown });
    expect(chunks.map((chunk) => chunk.choices[0]?.delta ?? 'usage')).toEqual([
      { role: 'assistant', content: '' },
      { reasoning_content: 'look ' },
      { reasoning_content: 'first' },
      { content: 'Hel' },
      { content: 'lo.' },
      { tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'Bash', arguments: '' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"command"' } }] },
      { tool_calls: [{ index: 0, function: { arguments: ':"ls"}' } }] },
      { tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'Read', arguments: '{}' } }] },
      {},
      'usage',
    ]);
    expect(chunks.every((chunk) => chunk.id === 'chatcmpl-up')).toBe(true);
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('Anthropic: every delta is an event the moment it arrives; a change of kind closes the block (thinking with its signature)', () => {
    const { perDelta, events } = written('anthropic', capturedRequest('claude-code').body);
    // Nothing waits: each delta gives its events at once (a call's first, argument-less delta its block start).
    expect(perDelta.slice(1).every((group) => group.length > 0)).toBe(true);
    expect(eventTypes(events)).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    const data = events.map((event) => event.data as Record<string, unknown>);
    expect(data[5]).toEqual({ type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'corral-abc' } });
    expect(data[11]).toEqual({ type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'call_a', name: 'Bash', input: {} } });
    const partialJson = data
      .filter((event) => event['index'] === 2 && event['type'] === 'content_block_delta')
      .map((event) => (event['delta'] as { partial_json: string }).partial_json);
    expect(JSON.parse(partialJson.join(''))).toEqual({ command: 'ls' });
    expect(data.at(-2)).toMatchObject({ delta: { stop_reason: 'tool_use' }, usage: { input_tokens: 11, output_tokens: 7 } });
  });

  it('Responses: items open and close as the kind changes, sequence numbers run on, and response.completed lists what was streamed', () => {
    const { events } = written('responses', { model: 'm', input: 'x', stream: true });
    expect(eventTypes(events)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const data = events.map((event) => event.data as Record<string, unknown>);
    expect(data.map((event) => event['sequence_number'])).toEqual(data.map((_, index) => index));
    expect(data[13]).toMatchObject({ type: 'response.output_text.done', text: 'Hello.', output_index: 1 });
    const done = data.filter((event) => event['type'] === 'response.output_item.done').map((event) => event['item']);
    expect((data.at(-1)!['response'] as { output: unknown[] }).output).toEqual(done);
    expect(done[2]).toMatchObject({ type: 'function_call', call_id: 'call_a', name: 'Bash', arguments: '{"command":"ls"}' });
  });

  it('Responses: a namespaced call is given back with namespace and name from its first delta on; a custom tool’s input goes out whole', () => {
    const dialect = DIALECTS.responses;
    const request = dialect.translateRequest(
      {
        model: 'm',
        input: 'x',
        stream: true,
        tools: [
          { type: 'namespace', name: 'mcp__box', tools: [{ type: 'function', name: 'run', parameters: {} }] },
          { type: 'custom', name: 'apply_patch' },
        ],
      },
      context,
    );
    const writer = dialect.streamWriter(request, start);
    writer.start();
    const added = writer.write({ type: 'tool-call', index: 0, id: 'c1', name: 'mcp__box__run', arguments: '{"a":' });
    expect(added.map((event) => event.data)).toEqual([
      expect.objectContaining({
        type: 'response.output_item.added',
        item: expect.objectContaining({ namespace: 'mcp__box', name: 'run', status: 'in_progress', arguments: '' }),
      }),
      expect.objectContaining({ type: 'response.function_call_arguments.delta', delta: '{"a":' }),
    ]);
    writer.write({ type: 'tool-call', index: 0, arguments: '1}' });
    expect(eventTypes(writer.write({ type: 'tool-call', index: 1, id: 'c2', name: 'apply_patch', arguments: '{"input":"*** Begin' }))).toEqual([
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.output_item.added',
    ]);
    expect(writer.write({ type: 'tool-call', index: 1, arguments: ' Patch"}' })).toEqual([]);
    const end = writer.finish(answerOf({ role: 'assistant', content: null, tool_calls: [toolCall('c1', 'mcp__box__run', { a: 1 })] }));
    expect(end.map((event) => event.data)).toEqual([
      expect.objectContaining({ type: 'response.custom_tool_call_input.delta', delta: '*** Begin Patch' }),
      expect.objectContaining({ type: 'response.custom_tool_call_input.done', input: '*** Begin Patch' }),
      expect.objectContaining({
        type: 'response.output_item.done',
        item: expect.objectContaining({ type: 'custom_tool_call', call_id: 'c2', input: '*** Begin Patch' }),
      }),
      expect.objectContaining({ type: 'response.completed' }),
    ]);
  });

  it('Gemini: a chunk per thought and text delta at once; calls, finishReason and usage in the last chunk', () => {
    const { perDelta, events } = written('gemini', capturedRequest('gemini-cli').body, {
      pathModel: 'gemini-x',
      streamRoute: true,
      query: new URLSearchParams(),
    });
    expect(perDelta.map((group) => group.length)).toEqual([0, 1, 1, 1, 1, 0, 0, 0, 0]);
    const chunks = events.map((event) => event.data as { candidates: { content: { parts: unknown[] }; finishReason?: string }[]; usageMetadata?: unknown });
    expect(chunks.map((chunk) => chunk.candidates[0]!.content.parts)).toEqual([
      [{ text: 'look ', thought: true }],
      [{ text: 'first', thought: true }],
      [{ text: 'Hel' }],
      [{ text: 'lo.' }],
      [{ functionCall: { id: 'call_a', name: 'Bash', args: { command: 'ls' } } }, { functionCall: { id: 'call_b', name: 'Read', args: {} } }],
    ]);
    expect(chunks.map((chunk) => chunk.candidates[0]!.finishReason ?? null)).toEqual([null, null, null, null, 'STOP']);
    expect(chunks.at(-1)!.usageMetadata).toEqual({ promptTokenCount: 11, candidatesTokenCount: 7, totalTokenCount: 18 });
  });

  it('Gemini: a text-only stream ends with an empty text part carrying the finish', () => {
    const dialect = DIALECTS.gemini;
    const writer = dialect.streamWriter(
      dialect.translateRequest({ contents: [{ role: 'user', parts: [{ text: 'x' }] }] }, { streamRoute: true, query: new URLSearchParams() }),
      start,
    );
    const events = [...writer.write({ type: 'text', text: 'hi' }), ...writer.finish(answerOf({ role: 'assistant', content: 'hi' }))];
    expect(events.map((event) => (event.data as { candidates: unknown[] }).candidates[0])).toEqual([
      { content: { role: 'model', parts: [{ text: 'hi' }] }, index: 0 },
      { content: { role: 'model', parts: [{ text: '' }] }, index: 0, finishReason: 'STOP' },
    ]);
  });
});
