/**
 * Gemini generateContent requests (Gemini CLI) as Chat Completions: systemInstruction leads, `user` contents
 * become user messages (text and inlineData images), `model` contents the assistant's text (thought parts left
 * out) and tool_calls, functionResponse parts tool messages. Gemini's function calls may carry no id, so calls
 * get stable ids from their position and each response is matched by id, else by name to the oldest unanswered
 * call. Tools: functionDeclarations (`parametersJsonSchema` as is, OpenAPI-style `parameters` with types
 * lower-cased) as function tools; generationConfig maps to sampling fields.
 */
import type { ToolCallRequest } from '../runner/trajectory/messages.js';
import type { ChatContentPart, ChatFunctionTool, ChatRequest, ProxyChatMessage } from './chat-wire.js';
import type { RouteContext, ToolTranslation, TranslatedRequest } from './dialect.js';
import { asArray, asRecord, asString, type JsonRecord } from './json-values.js';
import { badRequest } from './proxy-error.js';
import { joinLeadingSystemMessages } from './system-messages.js';

const GENERATION_FIELDS: Record<string, string> = { temperature: 'temperature', topP: 'top_p', topK: 'top_k', maxOutputTokens: 'max_tokens', seed: 'seed' };

export function translateGeminiTools(value: unknown): ToolTranslation {
  const tools = asArray(value).flatMap((tool) => asArray(asRecord(tool)?.['functionDeclarations']).flatMap(chatTool));
  return { tools, namespaced: new Map(), customTools: new Set() };
}

export function translateGeminiRequest(body: unknown, context: RouteContext, translation: ToolTranslation): TranslatedRequest<null> {
  const request = asRecord(body);
  if (!request) throw badRequest('the request body must be a JSON object');
  const contents = asArray(request['contents']);
  if (contents.length === 0) throw badRequest('contents is not specified');
  const messages: ProxyChatMessage[] = [];
  const system = partsText(asRecord(request['systemInstruction'])?.['parts'] ?? request['systemInstruction']);
  if (system) messages.push({ role: 'system', content: system });
  const unanswered: ToolCallRequest[] = [];
  contents.forEach((value, contentIndex) => appendContent(messages, asRecord(value), contentIndex, unanswered));

  const chat: ChatRequest = { messages: joinLeadingSystemMessages(messages) };
  const { tools } = translation;
  if (tools.length > 0) chat.tools = tools as ChatFunctionTool[];
  const calling = asRecord(asRecord(request['toolConfig'])?.['functionCallingConfig']);
  const allowed = asArray(calling?.['allowedFunctionNames']);
  if (tools.length > 0 && calling?.['mode'] === 'NONE') chat['tool_choice'] = 'none';
  else if (tools.length > 0 && calling?.['mode'] === 'ANY')
    chat['tool_choice'] = allowed.length === 1 && typeof allowed[0] === 'string' ? { type: 'function', function: { name: allowed[0] } } : 'required';
  const generation = asRecord(request['generationConfig']) ?? {};
  for (const [field, chatField] of Object.entries(GENERATION_FIELDS)) if (typeof generation[field] === 'number') chat[chatField] = generation[field];
  if (Array.isArray(generation['stopSequences']) && generation['stopSequences'].length > 0) chat['stop'] = generation['stopSequences'];
  const stream = context.streamRoute === true;
  return { chat, stream, clientModel: context.pathModel ?? '', state: null };
}

function appendContent(messages: ProxyChatMessage[], content: JsonRecord | undefined, contentIndex: number, unanswered: ToolCallRequest[]): void {
  if (!content) return;
  const parts = asArray(content['parts']).map((part) => asRecord(part) ?? {});
  if (content['role'] === 'model') {
    const text = parts
      .filter((part) => typeof part['text'] === 'string' && part['thought'] !== true)
      .map((part) => part['text'] as string)
      .join('');
    const toolCalls: ToolCallRequest[] = [];
    parts.forEach((part, partIndex) => {
      const call = asRecord(part['functionCall']);
      if (!call) return;
      const id = asString(call['id']) ?? geminiCallId(contentIndex, partIndex);
      toolCalls.push({ id, type: 'function', function: { name: asString(call['name']) ?? '', arguments: JSON.stringify(call['args'] ?? {}) } });
    });
    unanswered.push(...toolCalls);
    messages.push(
      toolCalls.length > 0 ? { role: 'assistant', content: text === '' ? null : text, tool_calls: toolCalls } : { role: 'assistant', content: text },
    );
    return;
  }
  const userParts: ChatContentPart[] = [];
  for (const part of parts) {
    const response = asRecord(part['functionResponse']);
    if (response) {
      messages.push({ role: 'tool', tool_call_id: answeredCallId(response, unanswered), content: responseText(response['response']) });
    } else if (typeof part['text'] === 'string') userParts.push({ type: 'text', text: part['text'] });
    else {
      const inline = asRecord(part['inlineData']);
      if (inline)
        userParts.push({
          type: 'image_url',
          image_url: { url: `data:${asString(inline['mimeType']) ?? 'image/png'};base64,${asString(inline['data']) ?? ''}` },
        });
    }
  }
  if (userParts.length > 0) messages.push({ role: 'user', content: userParts.length === 1 && userParts[0]!.type === 'text' ? userParts[0]!.text : userParts });
}

/** The id the proxy gives a function call that came without one; the same position gives the same id next turn. */
export const geminiCallId = (contentIndex: number, partIndex: number) => `call_gemini_${contentIndex}_${partIndex}`;

function answeredCallId(response: JsonRecord, unanswered: ToolCallRequest[]): string {
  const id = asString(response['id']);
  const name = asString(response['name']);
  const position = id ? unanswered.findIndex((call) => call.id === id) : unanswered.findIndex((call) => call.function.name === name);
  if (position >= 0) return unanswered.splice(position, 1)[0]!.id;
  return id ?? `call_gemini_unmatched_${name ?? ''}`;
}

/** Gemini CLI answers {output: "..."} or {error: "..."}; anything else is sent as JSON. */
function responseText(value: unknown): string {
  const response = asRecord(value);
  if (!response) return typeof value === 'string' ? value : JSON.stringify(value ?? null);
  const keys = Object.keys(response);
  if (keys.length === 1 && typeof response['output'] === 'string') return response['output'];
  if (keys.length === 1 && typeof response['error'] === 'string') return `Error: ${response['error']}`;
  return JSON.stringify(response);
}

function chatTool(value: unknown): ChatFunctionTool[] {
  const declaration = asRecord(value);
  const name = asString(declaration?.['name']);
  if (!declaration || !name) return [];
  const description = asString(declaration['description']);
  const parameters = asRecord(declaration['parametersJsonSchema']) ?? lowerCaseTypes(asRecord(declaration['parameters'])) ?? { type: 'object', properties: {} };
  return [{ type: 'function', function: { name, ...(description ? { description } : {}), parameters } }];
}

/** OpenAPI-style Gemini schemas spell types "OBJECT", "STRING"; JSON Schema wants them lower case. */
function lowerCaseTypes(schema: JsonRecord | undefined): JsonRecord | undefined {
  if (!schema) return undefined;
  const converted: JsonRecord = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type' && typeof value === 'string') converted[key] = value.toLowerCase();
    else if (key === 'properties' && asRecord(value))
      converted[key] = Object.fromEntries(Object.entries(value as JsonRecord).map(([name, inner]) => [name, lowerCaseTypes(asRecord(inner)) ?? inner]));
    else if ((key === 'items' || key === 'additionalProperties') && asRecord(value)) converted[key] = lowerCaseTypes(value as JsonRecord);
    else if ((key === 'anyOf' || key === 'oneOf' || key === 'allOf') && Array.isArray(value))
      converted[key] = value.map((inner) => lowerCaseTypes(asRecord(inner)) ?? inner);
    else converted[key] = value;
  }
  return converted;
}

function partsText(value: unknown): string {
  if (typeof value === 'string') return value;
  return asArray(value)
    .map((part) => asString(asRecord(part)?.['text']) ?? '')
    .filter((text) => text !== '')
    .join('\n');
}
