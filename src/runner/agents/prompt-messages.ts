/** The conversation an agent starts from: the system prompt, then the example's user turn or its message list. */
import type { Example } from '../contract/environment.js';
import type { ChatMessage } from '../trajectory/messages.js';

/** Must match what the runner writes as a result's `prompt`, so the recorded prompt is the one the model saw. */
export function agentPromptMessages(systemPrompt: string, example: Example): ChatMessage[] {
  const system: ChatMessage = { role: 'system', content: systemPrompt };
  return typeof example.prompt === 'string' ? [system, { role: 'user', content: example.prompt }] : [system, ...example.prompt];
}
