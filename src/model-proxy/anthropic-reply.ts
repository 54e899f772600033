/**
 * Chat Completions answers as Anthropic messages and as the Messages event stream Claude Code reads:
 * message_start (usage so far), per content block content_block_start → ping after the first → deltas
 * (thinking_delta + signature_delta, text_delta, input_json_delta) → content_block_stop, then message_delta
 * (stop_reason, the whole usage, which a stream knows only at its end) and message_stop. Errors are {type:"error", error:{type, message}}.
 */
import type { StreamEvent, StreamStart, StreamWriter, TranslatedRequest, UpstreamAnswer } from './dialect.js';
import { parseArgumentsObject } from './json-values.js';
import type { ProxyError } from './proxy-error.js';

type ContentBlock =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

const STOP_REASONS: Record<string, string> = { stop: 'end_turn', length: 'max_tokens', tool_calls: 'tool_use', function_call: 'tool_use' };

function contentBlocks(answer: UpstreamAnswer): ContentBlock[] {
  const { message } = answer.turn;
  const blocks: ContentBlock[] = [];
  // The signature is the proxy's own: there is no Anthropic signer upstream, and Claude Code only echoes it back.
  if (message.reasoning_content) blocks.push({ type: 'thinking', thinking: message.reasoning_content, signature: signature(answer.id) });
  if (message.content) blocks.push({ type: 'text', text: message.content });
  for (const call of message.tool_calls ?? [])
    blocks.push({ type: 'tool_use', id: call.id, name: call.function.name, input: parseArgumentsObject(call.function.arguments) });
  return blocks;
}

function stopReason(answer: UpstreamAnswer): string {
  if ((answer.turn.message.tool_calls ?? []).length > 0) return 'tool_use';
  return STOP_REASONS[answer.turn.finishReason ?? 'stop'] ?? 'end_turn';
}

const signature = (answerId: string) => `corral-${answerId}`;

function usageOf(reported: UpstreamAnswer['turn']['usage']) {
  return {
    input_tokens: reported?.prompt_tokens ?? 0,
    output_tokens: reported?.completion_tokens ?? 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: reported?.cached_tokens ?? 0,
  };
}

export function anthropicBody(answer: UpstreamAnswer, request: TranslatedRequest<null>) {
  return {
    id: `msg_${answer.id}`,
    type: 'message',
    role: 'assistant',
    model: request.clientModel,
    content: contentBlocks(answer),
    stop_reason: stopReason(answer),
    stop_sequence: null,
    usage: usageOf(answer.turn.usage),
  };
}

/**
 * The Messages stream, block by block as deltas arrive: a change of kind (thinking, text, a new tool call) closes
 * the open block (a thinking block with its signature) and opens the next; the first start is followed by a ping.
 */
export function anthropicStreamWriter(request: TranslatedRequest<null>, start: StreamStart): StreamWriter {
  const emit = (type: string, fields: Record<string, unknown>): StreamEvent => ({ event: type, data: { type, ...fields } });
  let open: { kind: 'thinking' | 'text' | 'tool'; toolIndex: number; sawArguments: boolean } | null = null;
  let blocks = 0;
  const close = (): StreamEvent[] => {
    if (!open) return [];
    const index = blocks - 1;
    const events: StreamEvent[] = [];
    if (open.kind === 'thinking') events.push(emit('content_block_delta', { index, delta: { type: 'signature_delta', signature: signature(start.id) } }));
    // A call with no arguments at all still gives Claude Code an input to parse.
    if (open.kind === 'tool' && !open.sawArguments)
      events.push(emit('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: '{}' } }));
    events.push(emit('content_block_stop', { index }));
    open = null;
    return events;
  };
  const begin = (kind: 'thinking' | 'text' | 'tool', block: Record<string, unknown>, toolIndex = -1): StreamEvent[] => {
    const events = close();
    open = { kind, toolIndex, sawArguments: false };
    events.push(emit('content_block_start', { index: blocks, content_block: block }));
    if (blocks === 0) events.push(emit('ping', {}));
    blocks++;
    return events;
  };
  return {
    start() {
      const usage = usageOf(start.usage ?? null);
      const message = {
        id: `msg_${start.id}`,
        type: 'message',
        role: 'assistant',
        model: request.clientModel,
        content: [],
        stop_reason: null,
        stop_sequence: null,
      };
      return [emit('message_start', { message: { ...message, usage: { ...usage, output_tokens: 0 } } })];
    },
    write(delta) {
      if (delta.type === 'reasoning') {
        const events = open?.kind === 'thinking' ? [] : begin('thinking', { type: 'thinking', thinking: '', signature: '' });
        events.push(emit('content_block_delta', { index: blocks - 1, delta: { type: 'thinking_delta', thinking: delta.text } }));
        return events;
      }
      if (delta.type === 'text') {
        const events = open?.kind === 'text' ? [] : begin('text', { type: 'text', text: '' });
        events.push(emit('content_block_delta', { index: blocks - 1, delta: { type: 'text_delta', text: delta.text } }));
        return events;
      }
      const events =
        open?.kind === 'tool' && open.toolIndex === delta.index
          ? []
          : begin('tool', { type: 'tool_use', id: delta.id ?? `call_${start.id}_${delta.index}`, name: delta.name ?? '', input: {} }, delta.index);
      if (delta.arguments !== '') {
        open!.sawArguments = true;
        events.push(emit('content_block_delta', { index: blocks - 1, delta: { type: 'input_json_delta', partial_json: delta.arguments } }));
      }
      return events;
    },
    finish(answer) {
      const events = close();
      if (blocks === 0) events.push(emit('ping', {}));
      events.push(emit('message_delta', { delta: { stop_reason: stopReason(answer), stop_sequence: null }, usage: usageOf(answer.turn.usage) }));
      events.push(emit('message_stop', {}));
      return events;
    },
  };
}

const ERROR_TYPES: Record<ProxyError['kind'], string> = {
  invalid_request: 'invalid_request_error',
  context_length: 'invalid_request_error',
  authentication: 'authentication_error',
  not_found: 'not_found_error',
  rate_limit: 'rate_limit_error',
  server: 'api_error',
  overloaded: 'overloaded_error',
  timeout: 'api_error',
};

export function anthropicErrorBody(error: ProxyError) {
  // Claude Code compacts the conversation when a 400 says "prompt is too long", so a context overflow says it.
  const message = error.kind === 'context_length' && !/prompt is too long/i.test(error.message) ? `prompt is too long: ${error.message}` : error.message;
  return { type: 'error', error: { type: ERROR_TYPES[error.kind], message } };
}
