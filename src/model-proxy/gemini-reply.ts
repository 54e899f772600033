/**
 * Chat Completions answers as Gemini GenerateContentResponse objects. A stream is such chunks (thoughts,
 * text, function calls), the last carrying finishReason and usageMetadata, as Gemini's own stream ends; an answer
 * with nothing in it still sends one empty text part, which Gemini CLI reads as an empty answer, not a broken stream.
 */
import type { StreamEvent, StreamStart, StreamWriter, TranslatedRequest, UpstreamAnswer } from './dialect.js';
import { parseArgumentsObject } from './json-values.js';
import type { ProxyError } from './proxy-error.js';

type Part = { text: string; thought?: true } | { functionCall: { id: string; name: string; args: Record<string, unknown> } };

const FINISH_REASONS: Record<string, string> = { stop: 'STOP', tool_calls: 'STOP', length: 'MAX_TOKENS', content_filter: 'SAFETY' };

function answerParts(answer: UpstreamAnswer): Part[] {
  const { message } = answer.turn;
  const parts: Part[] = [];
  if (message.reasoning_content) parts.push({ text: message.reasoning_content, thought: true });
  if (message.content) parts.push({ text: message.content });
  for (const call of message.tool_calls ?? [])
    parts.push({ functionCall: { id: call.id, name: call.function.name, args: parseArgumentsObject(call.function.arguments) } });
  return parts.length > 0 ? parts : [{ text: '' }];
}

/** `last`: the whole answer, whose finish reason and usage the last chunk carries. */
function chunk(parts: Part[], responseId: string, request: TranslatedRequest<null>, last: UpstreamAnswer | null) {
  const usage = last?.turn.usage;
  const candidate: Record<string, unknown> = { content: { role: 'model', parts }, index: 0 };
  if (last) candidate['finishReason'] = FINISH_REASONS[last.turn.finishReason ?? 'stop'] ?? 'STOP';
  return {
    candidates: [candidate],
    ...(usage
      ? {
          usageMetadata: {
            promptTokenCount: usage.prompt_tokens,
            candidatesTokenCount: usage.completion_tokens,
            totalTokenCount: usage.prompt_tokens + usage.completion_tokens,
            ...(usage.cached_tokens ? { cachedContentTokenCount: usage.cached_tokens } : {}),
          },
        }
      : {}),
    modelVersion: request.clientModel,
    responseId,
  };
}

export function geminiBody(answer: UpstreamAnswer, request: TranslatedRequest<null>) {
  return chunk(answerParts(answer), answer.id, request, answer);
}

/**
 * Gemini's stream as deltas arrive: a chunk per thought or text delta, sent at once; function calls (whose args
 * Gemini sends whole) in the last chunk, which carries finishReason and usageMetadata as Gemini's own stream does,
 * or an empty text part when there are no calls.
 */
export function geminiStreamWriter(request: TranslatedRequest<null>, start: StreamStart): StreamWriter {
  const calls = new Map<number, { id: string; name: string; args: string }>();
  const send = (parts: Part[]): StreamEvent[] => [{ data: chunk(parts, start.id, request, null) }];
  return {
    start: () => [],
    write(delta) {
      if (delta.type === 'reasoning') return send([{ text: delta.text, thought: true }]);
      if (delta.type === 'text') return send([{ text: delta.text }]);
      const call = calls.get(delta.index) ?? { id: delta.id ?? `call_${start.id}_${delta.index}`, name: delta.name ?? '', args: '' };
      call.args += delta.arguments;
      calls.set(delta.index, call);
      return [];
    },
    finish(answer) {
      const parts: Part[] = [...calls.values()].map((call) => ({ functionCall: { id: call.id, name: call.name, args: parseArgumentsObject(call.args) } }));
      return [{ data: chunk(parts.length > 0 ? parts : [{ text: '' }], start.id, request, answer) }];
    },
  };
}

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  408: 'DEADLINE_EXCEEDED',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

export function geminiErrorBody(error: ProxyError) {
  const status = STATUS_NAMES[error.status] ?? (error.status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT');
  return { error: { code: error.status, message: error.message, status } };
}
