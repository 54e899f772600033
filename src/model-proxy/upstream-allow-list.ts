/**
 * What a CLI's request may carry upstream. The CLI runs next to code the model wrote, so anything in its request
 * is the sandbox's to choose: a field the proxy forwarded blindly could steer the operator's endpoint (vLLM's `n`,
 * `best_of`, `chat_template`, `mm_processor_kwargs`, ...) or make it fetch a URL (remote images, video, files).
 * Every translated request is rebuilt from this allow-list before it goes upstream: known sampling fields, the four
 * message roles with their own fields, text parts, and images only as data:image URLs. Anything else in a message
 * is refused with 400 (the CLI learns why); unknown top-level fields are left out (CLIs send vendor extras).
 */
import type { ToolCallRequest } from '../runner/trajectory/messages.js';
import type { ChatContentPart, ChatRequest, ProxyChatMessage } from './chat-wire.js';
import { asRecord, asString, type JsonRecord } from './json-values.js';
import { badRequest } from './proxy-error.js';

/** Top-level Chat Completions fields a CLI may set (the proxy sets model, messages, tools, stream, stream_options). */
export const UPSTREAM_REQUEST_FIELDS: readonly string[] = [
  'tool_choice',
  'parallel_tool_calls',
  'temperature',
  'top_p',
  'top_k',
  'min_p',
  'max_tokens',
  'max_completion_tokens',
  'stop',
  'seed',
  'presence_penalty',
  'frequency_penalty',
  'repetition_penalty',
  'response_format',
  'reasoning_effort',
  'logprobs',
  'top_logprobs',
];

const ALLOWED_FIELDS = new Set(UPSTREAM_REQUEST_FIELDS);

/** An image the upstream decodes itself: never a URL it would fetch. */
const DATA_IMAGE_URL = /^data:image\/[a-z0-9.+-]+;base64,/i;

/** The request as it may go upstream; throws ProxyError 400 naming what is not allowed. */
export function allowedUpstreamRequest(chat: ChatRequest): ChatRequest {
  const allowed: ChatRequest = { messages: chat.messages.map(allowedMessage) };
  if (chat.tools !== undefined) allowed.tools = chat.tools;
  for (const [field, value] of Object.entries(chat)) if (ALLOWED_FIELDS.has(field) && value !== undefined) allowed[field] = value;
  return allowed;
}

function allowedMessage(value: unknown, index: number): ProxyChatMessage {
  const message = asRecord(value);
  if (!message) throw badRequest(`messages[${index}] must be an object`);
  const role = message['role'];
  const where = `messages[${index}]`;
  switch (role) {
    case 'system':
    case 'developer':
      return { role: 'system', content: textOrParts(message['content'], where, false) };
    case 'user':
      return { role: 'user', content: textOrParts(message['content'], where, true) };
    case 'tool':
      return { role: 'tool', tool_call_id: asString(message['tool_call_id']) ?? '', content: textOrParts(message['content'], where, false) };
    case 'assistant': {
      const content = message['content'] === null || message['content'] === undefined ? null : textOrParts(message['content'], where, false);
      const assistant: Extract<ProxyChatMessage, { role: 'assistant' }> = { role: 'assistant', content };
      if (Array.isArray(message['tool_calls']))
        assistant.tool_calls = message['tool_calls'].map((call, position) => allowedToolCall(call, `${where}.tool_calls[${position}]`));
      if (typeof message['reasoning_content'] === 'string') assistant.reasoning_content = message['reasoning_content'];
      return assistant;
    }
    default:
      throw badRequest(`${where}.role must be system, developer, user, assistant or tool, got ${JSON.stringify(role)}`);
  }
}

function allowedToolCall(value: unknown, where: string): ToolCallRequest {
  const call = asRecord(value);
  const fn = asRecord(call?.['function']);
  const name = asString(fn?.['name']);
  const args = fn?.['arguments'];
  if (!call || name === undefined || typeof args !== 'string') throw badRequest(`${where} must be {id, type: "function", function: {name, arguments: string}}`);
  return { id: asString(call['id']) ?? '', type: 'function', function: { name, arguments: args } };
}

function textOrParts(content: unknown, where: string, imagesAllowed: boolean): string | ChatContentPart[] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw badRequest(`${where}.content must be a string or a list of content parts`);
  return content.map((value, position) => allowedPart(asRecord(value), `${where}.content[${position}]`, imagesAllowed));
}

function allowedPart(part: JsonRecord | undefined, where: string, imagesAllowed: boolean): ChatContentPart {
  if (part?.['type'] === 'text' && typeof part['text'] === 'string') return { type: 'text', text: part['text'] };
  if (part?.['type'] === 'image_url' && imagesAllowed) {
    const image = asRecord(part['image_url']);
    const url = asString(image?.['url']);
    if (url === undefined || !DATA_IMAGE_URL.test(url))
      throw badRequest(`${where}: images reach the model only as data:image/...;base64 URLs, never a URL to fetch`);
    const detail = image?.['detail'];
    return { type: 'image_url', image_url: { url, ...(detail === 'auto' || detail === 'low' || detail === 'high' ? { detail } : {}) } };
  }
  throw badRequest(
    `${where}: only text parts${imagesAllowed ? ' and images as data: URLs' : ''} reach the model, got ${JSON.stringify(part?.['type'] ?? null)}`,
  );
}
