/**
 * A tiny chat template and tokenizer for the scripted model server, so token ids are realistic enough to test
 * training samples offline: UTF-8 bytes are ids 0..255, <|im_start|> and <|im_end|> are special ids, messages
 * render ChatML-style, tool calls as Hermes' <tool_call>{"name": ..., "arguments": ...}</tool_call>, reasoning as
 * <think>...</think> before the content. Two templates: 'keeps-history' renders history as sent; 'drops-think'
 * removes <think> blocks from every assistant message in the prompt, as DeepSeek-R1's template does, so a turn's
 * prompt no longer starts with the previous prompt + sampled completion (a prefix break).
 */
import type { ChatMessage } from '../runner/trajectory/messages.js';

export type ScriptedTemplate = 'keeps-history' | 'drops-think';

export const IM_START = 100_000;
export const IM_END = 100_001;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

const text = (value: string): number[] => [...encoder.encode(value)];

/** What the model "samples" for an assistant reply: the body text the template would render, then <|im_end|>. */
export function assistantText(message: { content?: string | null; reasoning?: string; toolCalls?: { name: string; arguments: string }[] }): string {
  const think = message.reasoning ? `<think>${message.reasoning}</think>` : '';
  const calls = (message.toolCalls ?? [])
    .map((call) => `<tool_call>{"name": ${JSON.stringify(call.name)}, "arguments": ${call.arguments || '{}'}}</tool_call>`)
    .join('');
  return `${think}${message.content ?? ''}${calls}`;
}

export function completionIds(sampledText: string): number[] {
  return [...text(sampledText), IM_END];
}

/** The conversation as prompt ids; with addGenerationPrompt, the assistant header the reply follows. */
export function renderConversation(messages: readonly ChatMessage[], template: ScriptedTemplate, addGenerationPrompt: boolean): number[] {
  const ids: number[] = [];
  for (const message of messages) {
    ids.push(IM_START, ...text(`${message.role}\n`), ...text(messageBody(message, template)), IM_END, ...text('\n'));
  }
  if (addGenerationPrompt) ids.push(IM_START, ...text('assistant\n'));
  return ids;
}

function messageBody(message: ChatMessage, template: ScriptedTemplate): string {
  if (message.role !== 'assistant') return message.content;
  const body = assistantText({
    content: message.content,
    ...(message.reasoning_content && template === 'keeps-history' ? { reasoning: message.reasoning_content } : {}),
    toolCalls: (message.tool_calls ?? []).map((call) => ({ name: call.function.name, arguments: call.function.arguments })),
  });
  return template === 'drops-think' ? body.replace(/<think>[\s\S]*?<\/think>/g, '') : body;
}

/** A deterministic "sampling logprob" per generated token, never 0 so masks are visible in tests. */
export function scriptedLogprobs(ids: readonly number[]): number[] {
  return ids.map((id, position) => -(((id * 7 + position) % 13) + 1) / 16);
}

/** Prompt ids back to messages (role and body text), so scripts of /v1/completions see a conversation. */
export function decodeConversation(ids: readonly number[]): { role: string; content: string }[] {
  const messages: { role: string; content: string }[] = [];
  let start = -1;
  for (let index = 0; index < ids.length; index++) {
    if (ids[index] === IM_START) start = index + 1;
    else if (ids[index] === IM_END && start >= 0) {
      const body = decoder.decode(Uint8Array.from(ids.slice(start, index)));
      const newline = body.indexOf('\n');
      messages.push({ role: body.slice(0, newline), content: body.slice(newline + 1) });
      start = -1;
    }
  }
  return messages;
}

export function decodeText(ids: readonly number[]): string {
  return decoder.decode(Uint8Array.from(ids.filter((id) => id < 256)));
}
