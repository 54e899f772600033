/**
 * Anthropic Messages requests (Claude Code) as Chat Completions: `system` (a string or text blocks) and any
 * role "system" messages lead; user text and image blocks become user content, tool_result blocks tool messages
 * (placed before the user's own text of that turn, as Chat Completions needs them right after the tool calls);
 * assistant text and tool_use blocks become the assistant's content and tool_calls (input as a JSON string);
 * thinking blocks are not sent back upstream. Tools: {name, description, input_schema} as function tools;
 * server tools (web_search_..., bash_..., with a `type`) have no counterpart and are left out.
 */
import type { ToolCallRequest } from '../runner/trajectory/messages.js';
import type { ChatContentPart, ChatFunctionTool, ChatRequest, ProxyChatMessage } from './chat-wire.js';
import type { ToolTranslation, TranslatedRequest } from './dialect.js';
import { asArray, asRecord, asString, type JsonRecord } from './json-values.js';
import { badRequest } from './proxy-error.js';
import { joinLeadingSystemMessages } from './system-messages.js';

export function translateAnthropicTools(value: unknown): ToolTranslation {
  return { tools: asArray(value).flatMap(chatTool), namespaced: new Map(), customTools: new Set() };
}

export function translateAnthropicRequest(body: unknown, translation: ToolTranslation): TranslatedRequest<null> {
  const request = asRecord(body);
  if (!request) throw badRequest('the request body must be a JSON object');
  if (!Array.isArray(request['messages'])) throw badRequest('messages: Field required');
  const messages: ProxyChatMessage[] = [];
  const system = blocksText(request['system']);
  if (system) messages.push({ role: 'system', content: system });
  for (const value of request['messages']) appendMessage(messages, asRecord(value));
  if (messages.length === 0) throw badRequest('messages: at least one message is required');

  const chat: ChatRequest = { messages: joinLeadingSystemMessages(messages) };
  const { tools } = translation;
  if (tools.length > 0) chat.tools = tools as ChatFunctionTool[];
  const toolChoice = asRecord(request['tool_choice']);
  if (toolChoice && tools.length > 0) {
    const type = toolChoice['type'];
    if (type === 'any') chat['tool_choice'] = 'required';
    else if (type === 'none') chat['tool_choice'] = 'none';
    else if (type === 'tool' && typeof toolChoice['name'] === 'string') chat['tool_choice'] = { type: 'function', function: { name: toolChoice['name'] } };
    if (toolChoice['disable_parallel_tool_use'] === true) chat['parallel_tool_calls'] = false;
  }
  for (const field of ['max_tokens', 'temperature', 'top_p', 'top_k'] as const) if (typeof request[field] === 'number') chat[field] = request[field];
  if (Array.isArray(request['stop_sequences']) && request['stop_sequences'].length > 0) chat['stop'] = request['stop_sequences'];
  return { chat, stream: request['stream'] === true, clientModel: asString(request['model']) ?? '', state: null };
}

function chatTool(value: unknown): ChatFunctionTool[] {
  const tool = asRecord(value);
  const name = asString(tool?.['name']);
  if (!tool || !name || (tool['type'] !== undefined && tool['type'] !== 'custom')) return [];
  const description = asString(tool['description']);
  const parameters = asRecord(tool['input_schema']) ?? { type: 'object', properties: {} };
  return [{ type: 'function', function: { name, ...(description ? { description } : {}), parameters } }];
}

function appendMessage(messages: ProxyChatMessage[], message: JsonRecord | undefined): void {
  if (!message) return;
  const role = message['role'];
  const content = message['content'];
  if (role === 'system') {
    const text = blocksText(content);
    if (text) messages.push({ role: 'system', content: text });
    return;
  }
  const blocks = typeof content === 'string' ? [{ type: 'text', text: content }] : asArray(content).map((block) => asRecord(block) ?? {});
  if (role === 'assistant') {
    const text = blocks.map((block) => (block['type'] === 'text' ? (asString(block['text']) ?? '') : '')).join('');
    const toolCalls: ToolCallRequest[] = blocks
      .filter((block) => block['type'] === 'tool_use')
      .map((block) => ({
        id: asString(block['id']) ?? '',
        type: 'function',
        function: { name: asString(block['name']) ?? '', arguments: JSON.stringify(block['input'] ?? {}) },
      }));
    messages.push(
      toolCalls.length > 0 ? { role: 'assistant', content: text === '' ? null : text, tool_calls: toolCalls } : { role: 'assistant', content: text },
    );
    return;
  }
  if (role !== 'user') throw badRequest(`messages: role must be user or assistant, got ${JSON.stringify(role)}`);
  const parts: ChatContentPart[] = [];
  for (const block of blocks) {
    if (block['type'] === 'tool_result') {
      const text = blocksText(block['content']);
      messages.push({
        role: 'tool',
        tool_call_id: asString(block['tool_use_id']) ?? '',
        content: block['is_error'] === true && text ? `Error: ${text}` : text,
      });
    } else if (block['type'] === 'text') parts.push({ type: 'text', text: asString(block['text']) ?? '' });
    else if (block['type'] === 'image') {
      const source = asRecord(block['source']);
      const url =
        source?.['type'] === 'base64'
          ? `data:${asString(source['media_type']) ?? 'image/png'};base64,${asString(source['data']) ?? ''}`
          : asString(source?.['url']);
      if (url) parts.push({ type: 'image_url', image_url: { url } });
    }
  }
  if (parts.length === 0) return;
  // One text block stays a string; several stay parts (joining them would glue Claude Code's reminders to the prompt).
  messages.push({ role: 'user', content: parts.length === 1 && parts[0]!.type === 'text' ? parts[0]!.text : parts });
}

/** A string, or the text of text blocks (system prompts and tool results come both ways). */
function blocksText(value: unknown): string {
  if (typeof value === 'string') return value;
  return asArray(value)
    .map((block) => {
      const record = asRecord(block);
      return record?.['type'] === 'text' ? (asString(record['text']) ?? '') : record?.['type'] === 'image' ? '[image]' : '';
    })
    .filter((text) => text !== '')
    .join('\n');
}
