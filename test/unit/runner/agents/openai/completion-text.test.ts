import { describe, expect, it } from 'vitest';
import { assistantFromCompletionText } from '../../../../../src/runner/agents/openai/completion-text.js';

describe('assistantFromCompletionText (token-in: /v1/completions text read as vLLM hermes + think parsers would)', () => {
  it('splits reasoning, content and tool calls', () => {
    const text = '<think>look it up</think>Let me check.<tool_call>{"name": "search_pages", "arguments": {"query": "rail"}}</tool_call>';
    expect(assistantFromCompletionText(text, 2)).toEqual({
      message: {
        role: 'assistant',
        content: 'Let me check.',
        reasoning_content: 'look it up',
        tool_calls: [{ id: 'call_2_0', type: 'function', function: { name: 'search_pages', arguments: '{"query":"rail"}' } }],
      },
      toolCalls: [{ id: 'call_2_0', type: 'function', function: { name: 'search_pages', arguments: '{"query":"rail"}' } }],
    });
  });

  it('keeps a tool call that is not JSON in the content, and plain text as the answer', () => {
    expect(assistantFromCompletionText('<tool_call>{broken</tool_call>', 1).message).toEqual({ role: 'assistant', content: '<tool_call>{broken</tool_call>' });
    expect(assistantFromCompletionText('Harriet Lowell', 1)).toEqual({ message: { role: 'assistant', content: 'Harriet Lowell' }, toolCalls: [] });
  });
});
