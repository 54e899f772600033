/**
 * The conversation as the simulated user sees it: roles swapped (the agent's words arrive as 'user' turns, the
 * user's own earlier words, the example's prompt included, are its 'assistant' turns), so any chat model can play the
 * user and its next completion is the user's next message. Tool calls and tool results stay on the agent's side: a
 * customer does not see the agent's database queries. The agent's system prompt is not shown either.
 */
import type { ChatMessage } from '../trajectory/messages.js';
import { answerWithoutReasoning } from '../agents/openai/reasoning-text.js';

export function userSideMessages(messages: readonly ChatMessage[]): ChatMessage[] {
  const swapped: ChatMessage[] = [];
  for (const message of messages) {
    if (message.role === 'user') swapped.push({ role: 'assistant', content: message.content });
    else if (message.role === 'assistant') {
      // The agent's reasoning is its own; an assistant turn that only called tools says nothing to the user.
      const text = answerWithoutReasoning(message.content ?? '').trim();
      if (text !== '') swapped.push({ role: 'user', content: text });
    }
  }
  return swapped;
}
