// Upstream's Chat Completions stream read chunk by chunk: the deltas handed to the CLI's writer, and the whole
// answer assembled for the record, with vLLM's per-chunk token ids and logprobs kept exactly and in order.
import { describe, expect, it } from 'vitest';
import { ChunkAssembler } from '../../../src/model-proxy/chunk-assembler.js';
import { SseReader } from '../../../src/model-proxy/sse-reader.js';
import { readChatCompletion } from '../../../src/runner/agents/openai/chat-completion-response.js';

const base = { id: 'chatcmpl-9', object: 'chat.completion.chunk', created: 1_800_000_000, model: 'qwen' };
const choice = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  ...base,
  choices: [{ index: 0, delta, finish_reason: null, ...extra }],
});
const logprobs = (...values: number[]) => ({ content: values.map((logprob, position) => ({ token: `t${position}`, logprob, bytes: null, top_logprobs: [] })) });

describe('ChunkAssembler', () => {
  it('hands over each delta as it comes and assembles the whole completion, token ids and logprobs concatenated in order', () => {
    const assembler = new ChunkAssembler();
    const chunks = [
      { ...choice({ role: 'assistant', content: '' }), prompt_token_ids: [1, 2, 3] },
      choice({ reasoning: 'think' }, { token_ids: [10], logprobs: logprobs(-0.5) }),
      choice({ content: 'Run' }, { token_ids: [11, 12], logprobs: logprobs(-0.25, -0.125) }),
      choice({ tool_calls: [{ index: 0, id: 'call_x', type: 'function', function: { name: 'shell', arguments: '' } }] }, { token_ids: [13] }),
      choice({ tool_calls: [{ index: 0, function: { arguments: '{"cmd":' } }] }, { token_ids: [14] }),
      choice({ tool_calls: [{ index: 0, function: { arguments: '"ls"}' } }] }, { token_ids: [15] }),
      choice({}, { finish_reason: 'tool_calls' }),
      { ...base, choices: [], usage: { prompt_tokens: 3, completion_tokens: 6, total_tokens: 9, prompt_tokens_details: { cached_tokens: 2 } } },
    ];
    expect(chunks.map((chunk) => assembler.push(chunk))).toEqual([
      [],
      [{ type: 'reasoning', text: 'think' }],
      [{ type: 'text', text: 'Run' }],
      [{ type: 'tool-call', index: 0, id: 'call_x', name: 'shell', arguments: '' }],
      [{ type: 'tool-call', index: 0, arguments: '{"cmd":' }],
      [{ type: 'tool-call', index: 0, arguments: '"ls"}' }],
      [],
      [],
    ]);
    const turn = readChatCompletion(assembler.body(), 1);
    expect(turn.message).toEqual({
      role: 'assistant',
      content: 'Run',
      tool_calls: [{ id: 'call_x', type: 'function', function: { name: 'shell', arguments: '{"cmd":"ls"}' } }],
      reasoning_content: 'think',
    });
    expect(turn.finishReason).toBe('tool_calls');
    expect(turn.usage).toEqual({ prompt_tokens: 3, completion_tokens: 6, cached_tokens: 2 });
    expect(turn.tokens).toEqual({ prompt_token_ids: [1, 2, 3], completion_token_ids: [10, 11, 12, 13, 14, 15], completion_logprobs: [-0.5, -0.25, -0.125] });
    expect(assembler.body()).toMatchObject({ id: 'chatcmpl-9', model: 'qwen', object: 'chat.completion' });
  });

  it('records no token data when the endpoint sent none, and an answer with calls and no text has null content', () => {
    const assembler = new ChunkAssembler();
    assembler.push(
      choice({
        tool_calls: [
          { index: 0, id: 'a', function: { name: 'f', arguments: '{}' } },
          { index: 1, id: 'b', function: { name: 'g', arguments: '{}' } },
        ],
      }),
    );
    assembler.push(choice({}, { finish_reason: 'tool_calls' }));
    const turn = readChatCompletion(assembler.body(), 1);
    expect(turn.tokens).toBeNull();
    expect(turn.message.content).toBeNull();
    expect(turn.toolCalls.map((call) => call.id)).toEqual(['a', 'b']);
  });
});

describe('SseReader', () => {
  it('reads events split anywhere across chunks, CRLF lines and multi-line data; skips comments', () => {
    const reader = new SseReader();
    const text = ': keep-alive\r\n\r\ndata: {"a":1}\r\n\r\nevent: x\ndata: line one\ndata: line two\n\ndata: [DONE]\n\n';
    const bytes = Buffer.from(text);
    const events: string[] = [];
    // One byte at a time: a UTF-8 or line boundary may fall anywhere.
    for (let at = 0; at < bytes.length; at++) events.push(...reader.push(bytes.subarray(at, at + 1)));
    events.push(...reader.end());
    expect(events).toEqual(['{"a":1}', 'line one\nline two', '[DONE]']);
    const multibyte = new SseReader();
    const word = Buffer.from('data: {"t":"→"}\n\n');
    expect([...multibyte.push(word.subarray(0, 13)), ...multibyte.push(word.subarray(13))]).toEqual(['{"t":"→"}']);
  });

  it('reads what the SSE spec allows and the hand-made reader dropped: CR-only lines, a leading BOM, a bare `data` line', () => {
    const text = '\uFEFFdata: first\r\rdata\rdata: after empty\r\rdata: crlf split\r\n\r\n';
    const bytes = Buffer.from(text);
    const reader = new SseReader();
    const events: string[] = [];
    for (let at = 0; at < bytes.length; at++) events.push(...reader.push(bytes.subarray(at, at + 1)));
    events.push(...reader.end());
    expect(events).toEqual(['first', '\nafter empty', 'crlf split']);
  });

  it('hands over a last event the upstream ended without its blank line, and fails on an over-long line', () => {
    const reader = new SseReader();
    expect(reader.push(Buffer.from('data: {"a":1}\n\ndata: [DONE]'))).toEqual(['{"a":1}']);
    expect(reader.end()).toEqual(['[DONE]']);
    const flood = new SseReader();
    expect(() => {
      for (let chunk = 0; chunk < 20; chunk++) flood.push(Buffer.alloc(1024 * 1024, 'x'));
    }).toThrow(/longer than/);
  });
});
