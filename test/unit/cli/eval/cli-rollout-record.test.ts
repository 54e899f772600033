import { describe, expect, it } from 'vitest';
import { cliConversation } from '../../../../src/cli/eval/cli-rollout-record.js';
import type { ModelCall } from '../../../../src/model-proxy/model-call.js';
import { buildSamples } from '../../../../src/runner/samples/build-samples.js';
import type { ResultRecord } from '../../../../src/runner/trajectory/result-record.js';

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

  it("trains on the final conversation's calls only: a title request is never in a sample; a conversation call without ids means no sample", () => {
    const title = call(0, [user], { role: 'assistant', content: 'Title' }, { prompt_token_ids: [50], completion_token_ids: [9], completion_logprobs: [-9] });
    const turnOne = { prompt_token_ids: [1, 2], completion_token_ids: [3, 4], completion_logprobs: [-0.5, -0.25] };
    const turnTwo = { prompt_token_ids: [1, 2, 3, 4, 5], completion_token_ids: [6], completion_logprobs: [-1] };
    const calls = [title, call(1, [system, user], first, turnOne), call(2, [system, user, first, result], second, turnTwo)];
    const record = (tokens: ResultRecord['tokens']) =>
      ({ reward: 1, error: null, group: { advantage: 0.5 }, example_id: 'e', rollout_index: 0, turns: 3, tokens }) as unknown as ResultRecord;
    const built = buildSamples(record(cliConversation(calls).tokens));
    expect(built.samples).toHaveLength(1);
    expect(built.samples[0]).toMatchObject({
      prompt_ids: [1, 2],
      completion_ids: [3, 4, 5, 6],
      completion_mask: [1, 1, 0, 1],
      completion_logprobs: [-0.5, -0.25, 0, -1],
    });
    const lossy = [title, call(1, [system, user], first, turnOne), call(2, [system, user, first, result], second, null)];
    expect(cliConversation(lossy).tokens).toEqual([{ ...turnOne, turn: 1 }, { turn: 2 }]);
    expect(buildSamples(record(cliConversation(lossy).tokens)).missing).toBe('tokens_missing');
  });

  it('matches a turn the CLI resent reshaped (OpenCode resends content null as "") to the call that produced it', () => {
    const silent = {
      role: 'assistant' as const,
      content: null,
      tool_calls: [{ id: 't2', type: 'function' as const, function: { name: 'py', arguments: '{"a": 1}' } }],
    };
    const resent = { ...silent, content: '', tool_calls: [{ ...silent.tool_calls[0]!, function: { name: 'py', arguments: '{"a":1}' } }] };
    const calls = [
      call(0, [system, user], silent, { completion_token_ids: [7] }),
      call(1, [system, user, resent, result], second, { completion_token_ids: [8] }),
    ];
    expect(cliConversation(calls).tokens).toEqual([
      { completion_token_ids: [7], turn: 1 },
      { completion_token_ids: [8], turn: 2 },
    ]);
  });

  it('no calls: an empty conversation', () => {
    expect(cliConversation([])).toEqual({ completion: [], tokens: [], answer: '' });
  });
});
