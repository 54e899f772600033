/** The four client dialects, assembled from their request readers and reply writers. */
import { anthropicBody, anthropicErrorBody, anthropicStreamWriter } from './anthropic-reply.js';
import { translateAnthropicRequest, translateAnthropicTools } from './anthropic-request.js';
import { chatCompletionsDialect } from './chat-completions-dialect.js';
import type { Dialect, DialectName } from './dialect.js';
import { asRecord } from './json-values.js';
import { geminiBody, geminiErrorBody, geminiStreamWriter } from './gemini-reply.js';
import { translateGeminiRequest, translateGeminiTools } from './gemini-request.js';
import { responsesBody, responsesFailedEvents, responsesStreamWriter } from './responses-reply.js';
import { translateResponsesRequest, translateResponsesTools, type ResponsesState } from './responses-request.js';
import { replayAnswer, replayStart } from './stream-replay.js';

const responsesDialect: Dialect<ResponsesState> = {
  name: 'responses',
  stableFields: ['instructions'],
  translateTools: translateResponsesTools,
  translateRequest: (body, _context, tools) => translateResponsesRequest(body, tools ?? translateResponsesTools(asRecord(body)?.['tools'])),
  replyBody: responsesBody,
  streamWriter: responsesStreamWriter,
  streamEvents: (answer, request) => replayAnswer(responsesStreamWriter(request, replayStart(answer)), answer),
  // The Responses API shapes its errors as Chat Completions does.
  errorBody: (error) => chatCompletionsDialect.errorBody(error),
  streamErrorEvents: responsesFailedEvents,
};

const anthropicDialect: Dialect<null> = {
  name: 'anthropic',
  stableFields: ['system'],
  translateTools: translateAnthropicTools,
  translateRequest: (body, _context, tools) => translateAnthropicRequest(body, tools ?? translateAnthropicTools(asRecord(body)?.['tools'])),
  replyBody: anthropicBody,
  streamWriter: anthropicStreamWriter,
  streamEvents: (answer, request) => replayAnswer(anthropicStreamWriter(request, replayStart(answer)), answer),
  errorBody: anthropicErrorBody,
  streamErrorEvents: (error) => [{ event: 'error', data: anthropicErrorBody(error) }],
};

const geminiDialect: Dialect<null> = {
  name: 'gemini',
  stableFields: ['systemInstruction'],
  translateTools: translateGeminiTools,
  translateRequest: (body, context, tools) => translateGeminiRequest(body, context, tools ?? translateGeminiTools(asRecord(body)?.['tools'])),
  replyBody: geminiBody,
  streamWriter: geminiStreamWriter,
  streamEvents: (answer, request) => replayAnswer(geminiStreamWriter(request, replayStart(answer)), answer),
  errorBody: geminiErrorBody,
  streamErrorEvents: (error) => [{ data: geminiErrorBody(error) }],
};

export const DIALECTS: Record<DialectName, Dialect> = {
  chat: chatCompletionsDialect as Dialect,
  responses: responsesDialect as Dialect,
  anthropic: anthropicDialect as Dialect,
  gemini: geminiDialect as Dialect,
};
