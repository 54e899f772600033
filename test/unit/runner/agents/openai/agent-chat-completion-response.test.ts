import { describe, expect, it } from 'vitest';
import { readChatCompletion } from '../../../../../src/runner/agents/openai/chat-completion-response.js';

const completion = (message: Record<string, unknown>, extra: Record<string, unknown> = {}, choiceExtra: Record<string, unknown> = {}) => ({
  id: 'c',
  choices: [{ index: 0, message, finish_reason: 'stop', ...choiceExtra }],
  ...extra,
});

describe('readChatCompletion', () => {
  it('reads a final answer without tool_calls', () => {
    const turn = readChatCompletion(completion({ role: 'assistant', content: 'hi' }), 1);
    expect(turn).toEqual({ message: { role: 'assistant', content: 'hi' }, toolCalls: [], finishReason: 'stop', truncated: false, usage: null, tokens: null });
  });

  it('normalises tool calls: missing ids, object arguments, missing arguments', () => {
    const turn = readChatCompletion(
      completion({
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'a', type: 'function', function: { name: 'echo', arguments: '{"text":"x"}' } },
          { function: { name: 'add', arguments: { a: 1 } } },
          { id: '', function: { name: 'noargs' } },
        ],
      }),
      3,
    );
    expect(turn.toolCalls).toEqual([
      { id: 'a', type: 'function', function: { name: 'echo', arguments: '{"text":"x"}' } },
      { id: 'call_3_1', type: 'function', function: { name: 'add', arguments: '{"a":1}' } },
      { id: 'call_3_2', type: 'function', function: { name: 'noargs', arguments: '' } },
    ]);
    expect(turn.message).toEqual({ role: 'assistant', content: null, tool_calls: turn.toolCalls });
  });

  it('copies vLLM token ids and logprobs exactly, from where vLLM puts them', () => {
    const body = completion(
      { role: 'assistant', content: 'x' },
      { prompt_token_ids: [1, 2] },
      { token_ids: [3], logprobs: { content: [{ token: 'x', logprob: -0.25, top_logprobs: [] }] } },
    );
    expect(readChatCompletion(body, 1).tokens).toEqual({ prompt_token_ids: [1, 2], completion_token_ids: [3], completion_logprobs: [-0.25] });
    const onlyLogprobs = completion({ role: 'assistant', content: 'x' }, {}, { logprobs: { content: [{ logprob: -1 }] } });
    expect(readChatCompletion(onlyLogprobs, 1).tokens).toEqual({ completion_logprobs: [-1] });
  });

  it('skips token fields that are not lists of numbers rather than recording something else', () => {
    const body = completion({ role: 'assistant', content: 'x' }, { prompt_token_ids: null }, { token_ids: ['a'], logprobs: null });
    expect(readChatCompletion(body, 1).tokens).toBeNull();
  });

  it.each([
    ['a string', 'not json'],
    ['no choices', { choices: [] }],
    ['no message', { choices: [{ index: 0 }] }],
    ['null', null],
  ])('throws MODEL_ERR_BAD_RESPONSE for %s', (_label, body) => {
    expect(() => readChatCompletion(body, 1)).toThrow(expect.objectContaining({ code: 'MODEL_ERR_BAD_RESPONSE' }));
  });
});
