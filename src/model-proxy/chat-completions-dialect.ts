/**
 * Chat Completions (OpenCode, Qwen Code): the request goes upstream as sent, bar the fields the proxy owns; the
 * answer comes back untouched, or as the chunk sequence the OpenAI SDK reads: a role chunk, reasoning and content
 * deltas, tool call deltas (the first of each call with index, id and name), the finish chunk, a usage chunk when
 * stream_options.include_usage asked for one, then `data: [DONE]`.
 */
import type { ChatFunctionTool, ChatRequest } from './chat-wire.js';
import type { Dialect, StreamEvent, TranslatedRequest } from './dialect.js';
import { asArray, asRecord, asString } from './json-values.js';
import { badRequest, type ProxyError } from './proxy-error.js';
import { replayAnswer, replayStart } from './stream-replay.js';

interface ChatState {
  includeUsage: boolean;
}

/** Not copied over: the proxy sets model, stream and stream_options itself; tools come from the tool translation. */
const CLIENT_ONLY_FIELDS = new Set(['model', 'stream', 'stream_options', 'tools']);

export const chatCompletionsDialect: Dialect<ChatState> = {
  name: 'chat',

  // The system prompt is messages[0]: nothing else to cache.
  stableFields: [],

  // Function tools go upstream with their own fields only (a non-list, or a tool of another type, is left out).
  translateTools: (tools) => ({ tools: asArray(tools).flatMap(functionTool), namespaced: new Map(), customTools: new Set() }),

  translateRequest(body, _context, translation) {
    const request = asRecord(body);
    const tools = (translation ?? chatCompletionsDialect.translateTools(request?.['tools'])).tools;
    if (!request) throw badRequest('the request body must be a JSON object');
    if (!Array.isArray(request['messages']) || request['messages'].length === 0) throw badRequest('messages must be a non-empty array');
    const chat: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(request)) if (!CLIENT_ONLY_FIELDS.has(field)) chat[field] = value;
    if (tools.length > 0) chat['tools'] = tools;
    return {
      chat: chat as ChatRequest,
      stream: request['stream'] === true,
      clientModel: asString(request['model']) ?? '',
      state: { includeUsage: asRecord(request['stream_options'])?.['include_usage'] === true },
    };
  },

  replyBody(answer) {
    return answer.body;
  },

  streamWriter(request: TranslatedRequest<ChatState>, start) {
    const id = start.upstreamId ?? `chatcmpl-${start.id}`;
    const model = start.upstreamModel ?? request.clientModel;
    const chunk = (delta: Record<string, unknown>, finish: string | null = null): StreamEvent => ({
      data: { id, object: 'chat.completion.chunk', created: start.created, model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] },
    });
    const startedCalls = new Set<number>();
    return {
      start: () => [chunk({ role: 'assistant', content: '' })],
      write(delta) {
        if (delta.type === 'reasoning') return [chunk({ reasoning_content: delta.text })];
        if (delta.type === 'text') return [chunk({ content: delta.text })];
        if (startedCalls.has(delta.index)) return [chunk({ tool_calls: [{ index: delta.index, function: { arguments: delta.arguments } }] })];
        startedCalls.add(delta.index);
        const call = {
          index: delta.index,
          id: delta.id ?? `call_${start.id}_${delta.index}`,
          type: 'function',
          function: { name: delta.name ?? '', arguments: delta.arguments },
        };
        return [chunk({ tool_calls: [call] })];
      },
      finish(answer) {
        const events = [chunk({}, answer.turn.finishReason ?? 'stop')];
        if (request.state.includeUsage)
          events.push({ data: { id, object: 'chat.completion.chunk', created: start.created, model, choices: [], usage: answer.body['usage'] ?? null } });
        return events;
      },
    };
  },

  streamEvents(answer, request: TranslatedRequest<ChatState>) {
    return replayAnswer(chatCompletionsDialect.streamWriter(request, replayStart(answer)), answer);
  },

  streamTerminator: '[DONE]',

  // The OpenAI SDK throws on a chunk that carries `error`.
  streamErrorEvents(error: ProxyError) {
    return [{ data: chatCompletionsDialect.errorBody(error) }];
  },

  errorBody(error: ProxyError) {
    return {
      error: {
        message: error.message,
        type: openAIErrorType(error),
        param: null,
        code: error.kind === 'context_length' ? 'context_length_exceeded' : error.code,
      },
    };
  },
};

function functionTool(value: unknown): ChatFunctionTool[] {
  const tool = asRecord(value);
  const fn = asRecord(tool?.['function']);
  const name = asString(fn?.['name']);
  if (tool?.['type'] !== 'function' || !fn || name === undefined) return [];
  const description = asString(fn['description']);
  const parameters = asRecord(fn['parameters']);
  return [{ type: 'function', function: { name, ...(description !== undefined ? { description } : {}), ...(parameters ? { parameters } : {}) } }];
}

/** The `type` OpenAI puts on its errors; the Responses dialect uses the same words. */
export function openAIErrorType(error: ProxyError): string {
  switch (error.kind) {
    case 'invalid_request':
    case 'context_length':
    case 'not_found':
      return 'invalid_request_error';
    case 'authentication':
      return 'authentication_error';
    case 'rate_limit':
      return 'rate_limit_exceeded';
    default:
      return 'server_error';
  }
}
