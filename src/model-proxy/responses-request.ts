/**
 * OpenAI Responses requests (Codex) as Chat Completions: `instructions` and developer/system items become the
 * system message, message items keep their text and images, function_call / custom_tool_call items become the
 * assistant's tool_calls and their *_output items tool messages. Tools: function tools as they are, custom
 * (freeform) tools as a function with one string argument `input`, and Codex's namespaces
 * (`{type:"namespace", name:"mcp__x", tools:[...]}`) flattened to `mcp__x__tool`; the state remembers each joined
 * name so the reply can give Codex back both namespace and name, which it requires.
 */
import type { ToolCallRequest } from '../runner/trajectory/messages.js';
import type { ChatContentPart, ChatFunctionTool, ChatRequest, ProxyChatMessage } from './chat-wire.js';
import type { ToolTranslation, TranslatedRequest } from './dialect.js';
import { asArray, asRecord, asString, type JsonRecord } from './json-values.js';
import { badRequest } from './proxy-error.js';
import { joinLeadingSystemMessages } from './system-messages.js';

export interface ResponsesState {
  /** Joined chat tool name → the namespace and name Codex declared. */
  namespaced: Map<string, { namespace: string; name: string }>;
  /** Names of custom (freeform) tools: their calls go back as custom_tool_call with a raw `input` string. */
  customTools: Set<string>;
}

export const joinNamespace = (namespace: string, name: string) => (namespace.endsWith('_') ? `${namespace}${name}` : `${namespace}__${name}`);

export function translateResponsesTools(value: unknown): ToolTranslation {
  const state: ResponsesState = { namespaced: new Map(), customTools: new Set() };
  const tools = asArray(value).flatMap((tool) => chatTools(tool, state));
  return { tools, namespaced: state.namespaced, customTools: state.customTools };
}

export function translateResponsesRequest(body: unknown, translation: ToolTranslation): TranslatedRequest<ResponsesState> {
  const request = asRecord(body);
  if (!request) throw badRequest('the request body must be a JSON object');
  if (request['previous_response_id'] !== undefined && request['previous_response_id'] !== null)
    throw badRequest('previous_response_id is not supported: the proxy stores no responses; send the whole input (store: false)');
  // Copies: calls and tool_choice add joined names per request, and the translation is shared between requests.
  const state: ResponsesState = { namespaced: new Map(translation.namespaced), customTools: new Set(translation.customTools) };
  const { tools } = translation;
  const messages: ProxyChatMessage[] = [];
  const instructions = asString(request['instructions']);
  if (instructions) messages.push({ role: 'system', content: instructions });
  const input = request['input'];
  if (typeof input === 'string') messages.push({ role: 'user', content: input });
  else if (Array.isArray(input)) for (const item of input) appendItem(messages, asRecord(item), state);
  else throw badRequest('input must be a string or an array of items');
  if (messages.length === 0) throw badRequest('input holds no messages');

  const chat: ChatRequest = { messages: joinLeadingSystemMessages(messages) };
  if (tools.length > 0) chat.tools = tools as ChatFunctionTool[];
  const toolChoice = chatToolChoice(request['tool_choice'], state);
  if (toolChoice !== undefined && tools.length > 0) chat['tool_choice'] = toolChoice;
  if (typeof request['parallel_tool_calls'] === 'boolean' && tools.length > 0) chat['parallel_tool_calls'] = request['parallel_tool_calls'];
  for (const field of ['temperature', 'top_p', 'seed', 'user'] as const)
    if (request[field] !== undefined && request[field] !== null) chat[field] = request[field];
  if (typeof request['max_output_tokens'] === 'number') chat['max_tokens'] = request['max_output_tokens'];
  const format = asRecord(asRecord(request['text'])?.['format']);
  if (format?.['type'] === 'json_schema')
    chat['response_format'] = { type: 'json_schema', json_schema: { name: format['name'], schema: format['schema'], strict: format['strict'] } };
  return { chat, stream: request['stream'] === true, clientModel: asString(request['model']) ?? '', state };
}

function chatTools(value: unknown, state: ResponsesState, namespace?: string): ChatFunctionTool[] {
  const tool = asRecord(value);
  const name = asString(tool?.['name']);
  if (!tool || !name) return [];
  if (tool['type'] === 'namespace') return asArray(tool['tools']).flatMap((inner) => chatTools(inner, state, name));
  const chatName = namespace ? joinNamespace(namespace, name) : name;
  if (namespace) state.namespaced.set(chatName, { namespace, name });
  const description = asString(tool['description']);
  if (tool['type'] === 'function') {
    const parameters = asRecord(tool['parameters']) ?? { type: 'object', properties: {} };
    return [{ type: 'function', function: { name: chatName, ...(description ? { description } : {}), parameters } }];
  }
  if (tool['type'] === 'custom') {
    state.customTools.add(chatName);
    const parameters = { type: 'object', properties: { input: { type: 'string', description: 'The raw input for this freeform tool.' } }, required: ['input'] };
    return [{ type: 'function', function: { name: chatName, ...(description ? { description } : {}), parameters } }];
  }
  // Hosted tools (web_search, file_search, local_shell, ...) have no Chat Completions counterpart.
  return [];
}

function chatToolChoice(value: unknown, state: ResponsesState): unknown {
  if (value === 'auto' || value === 'none' || value === 'required') return value;
  const choice = asRecord(value);
  const name = asString(choice?.['name']);
  if (!choice || !name) return undefined;
  const namespace = asString(choice['namespace']);
  const chatName = namespace ? joinNamespace(namespace, name) : name;
  if (namespace) state.namespaced.set(chatName, { namespace, name });
  return { type: 'function', function: { name: chatName } };
}

function appendItem(messages: ProxyChatMessage[], item: JsonRecord | undefined, state: ResponsesState): void {
  if (!item) return;
  const type = asString(item['type']) ?? (item['role'] ? 'message' : undefined);
  if (type === 'message') return appendMessage(messages, item);
  if (type === 'function_call' || type === 'custom_tool_call') {
    const namespace = asString(item['namespace']);
    const name = asString(item['name']) ?? '';
    const chatName = namespace ? joinNamespace(namespace, name) : name;
    if (namespace) state.namespaced.set(chatName, { namespace, name });
    const args = type === 'custom_tool_call' ? JSON.stringify({ input: asString(item['input']) ?? '' }) : (asString(item['arguments']) ?? '{}');
    const call: ToolCallRequest = {
      id: asString(item['call_id']) ?? asString(item['id']) ?? '',
      type: 'function',
      function: { name: chatName, arguments: args },
    };
    const last = messages[messages.length - 1];
    if (last?.role === 'assistant' && (last.tool_calls || last.content !== null)) (last.tool_calls ??= []).push(call);
    else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
    return;
  }
  if (type === 'function_call_output' || type === 'custom_tool_call_output') {
    messages.push({ role: 'tool', tool_call_id: asString(item['call_id']) ?? '', content: outputText(item['output']) });
  }
  // reasoning items: the model's earlier reasoning is not sent back upstream (as the openai agent does).
}

function appendMessage(messages: ProxyChatMessage[], item: JsonRecord): void {
  const role = asString(item['role']);
  const parts = contentParts(item['content']);
  const text = parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
  if (role === 'system' || role === 'developer') messages.push({ role: 'system', content: text });
  else if (role === 'assistant') messages.push({ role: 'assistant', content: text });
  else if (role === 'user') messages.push({ role: 'user', content: parts.length === 1 && parts[0]!.type === 'text' ? text : parts });
}

function contentParts(content: unknown): ChatContentPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return asArray(content).flatMap((value): ChatContentPart[] => {
    const part = asRecord(value);
    const text = asString(part?.['text']);
    if (text !== undefined && (part?.['type'] === 'input_text' || part?.['type'] === 'output_text' || part?.['type'] === 'text'))
      return [{ type: 'text', text }];
    const imageURL = asString(part?.['image_url']);
    if (part?.['type'] === 'input_image' && imageURL) return [{ type: 'image_url', image_url: { url: imageURL } }];
    return [];
  });
}

function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  return contentParts(output)
    .map((part) => (part.type === 'text' ? part.text : '[image]'))
    .join('');
}
