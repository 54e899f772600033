/**
 * The Chat Completions shapes the proxy sends upstream and records. Wider than the runner's ChatMessage: CLIs send
 * content parts (text, images) and the proxy forwards them as they are, so the record holds what the model saw.
 */
import type { ToolCallRequest } from '../runner/trajectory/messages.js';

export type ChatContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string; detail?: 'auto' | 'low' | 'high' } };

export type ChatContent = string | ChatContentPart[] | null;

export type ProxyChatMessage =
  | { role: 'system'; content: string | ChatContentPart[] }
  | { role: 'user'; content: string | ChatContentPart[] }
  | { role: 'assistant'; content: ChatContent; tool_calls?: ToolCallRequest[]; reasoning_content?: string }
  | { role: 'tool'; tool_call_id: string; content: string | ChatContentPart[] };

export interface ChatFunctionTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

/** A Chat Completions request body without `model` and `stream` (the proxy sets both for upstream). */
export interface ChatRequest {
  messages: ProxyChatMessage[];
  tools?: ChatFunctionTool[];
  /** Sampling and every other top-level field: temperature, max_tokens, tool_choice, stop, ... */
  [field: string]: unknown;
}

/** Joins text parts, for dialects whose target field is a plain string. */
export function contentText(content: ChatContent): string {
  if (content === null) return '';
  if (typeof content === 'string') return content;
  return content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}
