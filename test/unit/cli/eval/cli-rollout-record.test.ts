import { describe, expect, it } from 'vitest';
import { cliConversation } from '../../../../src/cli/eval/cli-rollout-record.js';
import type { ModelCall } from '../../../../src/model-proxy/model-call.js';

type Message = ModelCall['request']['messages'][number];

function call(index: number, messages: Message[], response: ModelCall['response'], tokens: ModelCall['tokens']): ModelCall {
  return {
    version: 1,
    index,
    rolloutId: 'r',
    dialect: 'anthropic',
    stream: true,
    clientModel: 'm',
    startedAtMs: 0,
    durationMs: 1,
    upstreamMs: 1,
    request: { messages, tools: [], sampling: {} },
    response,
    finishReason: 'stop',
    usage: null,
    tokens,
    error: null,
  };
}

describe('cliConversation', () => {
  const system: Message = { role: 'system', content: 'You are a CLI.' };
  const user: Message = { role: 'user', content: [{ type: 'text', text: 'write hello.txt' }] };
  const first = {
    role: 'assistant' as const,
    content: 'Writing.',
    tool_calls: [{ id: 't1', type: 'function' as const, function: { name: 'Bash', arguments: '{}' } }],
  };
  const result: Message = { role: 'tool', tool_call_id: 't1', content: 'ok' };
  const second = { role: 'assistant' as const, content: 'Done.' };

  it("is the last call's conversation without the system prompt, with each assistant turn's token ids from the call that produced it", () => {
    const title = call(0, [user], { role: 'assistant', content: 'Title' }, { completion_token_ids: [9] });
    const calls = [
      title,
      call(1, [system, user], first, { completion_token_ids: [1, 2] }),
      // The CLI resends the first answer as a copy (not the recorded object): matched by value.
      call(2, [system, user, { ...first }, result], second, { completion_token_ids: [3] }),
    ];
    const conversation = cliConversation(calls);
    expect(conversation.completion.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(conversation.completion[0]!.content).toBe('write hello.txt');
    expect(conversation.tokens).toEqual([
      { completion_token_ids: [1, 2], turn: 1 },
      { completion_token_ids: [3], turn: 2 },
    ]);
    expect(conversation.answer).toBe('Done.');
  });

  it('no calls: an empty conversation', () => {
    expect(cliConversation([])).toEqual({ completion: [], tokens: [], answer: '' });
  });
});
