import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../src/model-proxy/dialects.js';
import { ProxyError } from '../../../src/model-proxy/proxy-error.js';
import { answerOf, capturedRequest, eventTypes, toolCall } from './upstream-answers.js';

const dialect = DIALECTS.anthropic;
const context = { query: new URLSearchParams() };

describe('Anthropic Messages dialect (Claude Code)', () => {
  const claude = capturedRequest('claude-code');

  it("reads Claude Code's captured request: system blocks first, reminders kept as parts, tool_use and tool_result paired", () => {
    const translated = dialect.translateRequest(claude.body, context);
    const messages = translated.chat.messages;
    expect(messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'tool']);
    expect(typeof messages[0]!.content === 'string' && messages[0]!.content.length).toBeGreaterThan(1000);
    expect(Array.isArray(messages[1]!.content) && messages[1]!.content.length).toBe(8);
    const bash = messages[2] as { content: string; tool_calls: { id: string; function: { name: string; arguments: string } }[] };
    expect(bash.content).toBe('Running a shell command.');
    expect(bash.tool_calls[0]!.function.name).toBe('Bash');
    expect(JSON.parse(bash.tool_calls[0]!.function.arguments)).toMatchObject({ command: 'echo corral-shell' });
    expect((messages[3] as { tool_call_id: string }).tool_call_id).toBe(bash.tool_calls[0]!.id);
    expect((messages[5] as { content: string }).content).toContain('echo: corral-mcp');
    expect(translated.chat['max_tokens']).toBe(32000);
    expect(translated.stream).toBe(true);
    expect(translated.chat.tools?.map((tool) => tool.function.name)).toContain('mcp__corral__echo');
    expect(translated.chat.tools?.find((tool) => tool.function.name === 'Bash')?.function.parameters).toMatchObject({ type: 'object' });
  });

  it('puts tool results before the same turn’s text and reads images as data URLs', () => {
    const translated = dialect.translateRequest(
      {
        model: 'claude',
        max_tokens: 10,
        system: 'sys',
        messages: [
          { role: 'user', content: 'go' },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'hm', signature: 's' },
              { type: 'tool_use', id: 't1', name: 'Read', input: { path: 'a' } },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 't1', content: 'no such file', is_error: true },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
              { type: 'text', text: 'see this' },
            ],
          },
        ],
        tool_choice: { type: 'any', disable_parallel_tool_use: true },
        tools: [
          { name: 'Read', input_schema: { type: 'object' } },
          { type: 'web_search_20250305', name: 'web_search' },
        ],
        stop_sequences: ['END'],
      },
      context,
    );
    expect(translated.chat.messages).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [{ id: 't1', type: 'function', function: { name: 'Read', arguments: '{"path":"a"}' } }] },
      { role: 'tool', tool_call_id: 't1', content: 'Error: no such file' },
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
          { type: 'text', text: 'see this' },
        ],
      },
    ]);
    expect(translated.chat.tools?.map((tool) => tool.function.name)).toEqual(['Read']);
    expect(translated.chat['tool_choice']).toBe('required');
    expect(translated.chat['parallel_tool_calls']).toBe(false);
    expect(translated.chat['stop']).toEqual(['END']);
  });

  it('answers with thinking, text and tool_use blocks and stop_reason tool_use', () => {
    const translated = dialect.translateRequest(claude.body, context);
    const answer = answerOf({
      role: 'assistant',
      content: 'Checking.',
      reasoning_content: 'plan',
      tool_calls: [toolCall('call_1', 'Bash', { command: 'ls' })],
    });
    expect(dialect.replyBody(answer, translated)).toEqual({
      id: 'msg_abc',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [
        { type: 'thinking', thinking: 'plan', signature: 'corral-abc' },
        { type: 'text', text: 'Checking.' },
        { type: 'tool_use', id: 'call_1', name: 'Bash', input: { command: 'ls' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 11, output_tokens: 7, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    });
  });

  it('streams message_start, blocks with a ping after the first start, message_delta and message_stop', () => {
    const translated = dialect.translateRequest(claude.body, context);
    const answer = answerOf({ role: 'assistant', content: 'Checking.', tool_calls: [toolCall('call_1', 'Bash', { command: 'ls' })] });
    const events = dialect.streamEvents(answer, translated);
    expect(eventTypes(events)).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(events[5]!.data).toEqual({ type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'call_1', name: 'Bash', input: {} } });
    expect(events[6]!.data).toEqual({ type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"command":"ls"}' } });
    // A stream learns its usage at the end, so message_delta carries all of it (as Anthropic's own stream does).
    expect(events[8]!.data).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { input_tokens: 11, output_tokens: 7, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    });
  });

  it('maps finish reasons: length is max_tokens, stop is end_turn', () => {
    const translated = dialect.translateRequest({ model: 'c', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }, context);
    expect(
      (dialect.replyBody(answerOf({ role: 'assistant', content: 'cut' }, { finishReason: 'length' }), translated) as { stop_reason: string }).stop_reason,
    ).toBe('max_tokens');
    expect((dialect.replyBody(answerOf({ role: 'assistant', content: 'ok' }), translated) as { stop_reason: string }).stop_reason).toBe('end_turn');
  });

  it('shapes errors as {type:"error", error:{type, message}} and says "prompt is too long" on a context overflow', () => {
    expect(dialect.errorBody(new ProxyError(429, 'rate_limit', 'MODEL_ERR_RATE_LIMITED', 'slow'))).toEqual({
      type: 'error',
      error: { type: 'rate_limit_error', message: 'slow' },
    });
    const overflow = dialect.errorBody(new ProxyError(400, 'context_length', 'MODEL_ERR_CONTEXT_LENGTH', 'maximum context length is 8192')) as {
      error: { type: string; message: string };
    };
    expect(overflow.error.type).toBe('invalid_request_error');
    expect(overflow.error.message).toMatch(/^prompt is too long/);
    expect(() => dialect.translateRequest({ model: 'c', messages: [{ role: 'tool', content: 'x' }] }, context)).toThrow(/role must be user or assistant/);
  });
});
