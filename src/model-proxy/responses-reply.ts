/**
 * Chat Completions answers as Responses objects and as the Responses event stream Codex reads: response.created,
 * response.in_progress, then per output item output_item.added → (reasoning summary / content_part + output_text /
 * function_call_arguments) deltas and dones → output_item.done, and response.completed (response.incomplete when
 * the answer hit its token limit). Every event carries a sequence_number from 0.
 */
import type { StreamEvent, StreamStart, StreamWriter, TranslatedRequest, UpstreamAnswer } from './dialect.js';
import { asRecord } from './json-values.js';
import type { ProxyError } from './proxy-error.js';
import type { ResponsesState } from './responses-request.js';

type OutputItem = Record<string, unknown> & { type: string; id: string };

export function responsesOutput(answer: UpstreamAnswer, request: TranslatedRequest<ResponsesState>): OutputItem[] {
  const { message } = answer.turn;
  const items: OutputItem[] = [];
  if (message.reasoning_content) items.push(reasoningItem(answer.id, message.reasoning_content));
  if (message.content) items.push(messageItem(answer.id, message.content));
  (message.tool_calls ?? []).forEach((call, index) => items.push(toolItem(request, answer.id, index, call.id, call.function.name, call.function.arguments)));
  return items;
}

const reasoningItem = (answerId: string, text: string): OutputItem => ({
  type: 'reasoning',
  id: `rs_${answerId}`,
  summary: [{ type: 'summary_text', text }],
});

const messageItem = (answerId: string, text: string): OutputItem => ({
  type: 'message',
  id: `msg_${answerId}`,
  status: 'completed',
  role: 'assistant',
  content: [{ type: 'output_text', text, annotations: [] }],
});

/** A function_call (with Codex's namespace and name given back apart), or a custom_tool_call with its raw input. */
function toolItem(request: TranslatedRequest<ResponsesState>, answerId: string, index: number, callId: string, name: string, args: string): OutputItem {
  const id = `fc_${answerId}_${index}`;
  if (request.state.customTools.has(name)) {
    const input = asRecord(safeParse(args))?.['input'];
    return { type: 'custom_tool_call', id, status: 'completed', call_id: callId, name, input: typeof input === 'string' ? input : args };
  }
  const declared = request.state.namespaced.get(name);
  return {
    type: 'function_call',
    id,
    status: 'completed',
    call_id: callId,
    ...(declared ? { namespace: declared.namespace, name: declared.name } : { name }),
    arguments: args,
  };
}

export function responsesBody(answer: UpstreamAnswer, request: TranslatedRequest<ResponsesState>, output = responsesOutput(answer, request)) {
  const truncated = answer.turn.truncated;
  const usage = answer.turn.usage;
  return {
    ...responseShell(request, answer.id, answer.created),
    status: truncated ? 'incomplete' : 'completed',
    incomplete_details: truncated ? { reason: 'max_output_tokens' } : null,
    output,
    usage: usage
      ? {
          input_tokens: usage.prompt_tokens,
          input_tokens_details: { cached_tokens: usage.cached_tokens ?? 0 },
          output_tokens: usage.completion_tokens,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: usage.prompt_tokens + usage.completion_tokens,
        }
      : null,
  };
}

/** The response object as it stands before any output: what response.created and response.in_progress carry. */
function responseShell(request: TranslatedRequest<ResponsesState>, answerId: string, created: number) {
  return {
    id: `resp_${answerId}`,
    object: 'response',
    created_at: created,
    status: 'in_progress',
    error: null,
    incomplete_details: null,
    model: request.clientModel,
    output: [] as OutputItem[],
    parallel_tool_calls: request.chat['parallel_tool_calls'] ?? true,
    tool_choice: request.chat['tool_choice'] ?? 'auto',
    tools: [],
    usage: null,
  };
}

type OpenItem = { item: OutputItem; text: string; toolIndex: number };

/**
 * The Responses stream as deltas arrive. A change of kind closes the open item with its *.done events. A custom
 * tool's input is one field of the JSON arguments upstream streams, so it goes out whole when its item closes.
 */
export function responsesStreamWriter(request: TranslatedRequest<ResponsesState>, start: StreamStart): StreamWriter {
  let sequence = 0;
  const emit = (type: string, fields: Record<string, unknown>): StreamEvent => ({ event: type, data: { type, sequence_number: sequence++, ...fields } });
  const output: OutputItem[] = [];
  let open: OpenItem | null = null;
  const common = (current: OpenItem) => ({ item_id: current.item.id, output_index: output.length });

  const close = (): StreamEvent[] => {
    const current = open;
    if (!current) return [];
    open = null;
    const events: StreamEvent[] = [];
    let item = current.item;
    if (item.type === 'message') {
      item = messageItem(start.id, current.text);
      events.push(emit('response.output_text.done', { ...common(current), content_index: 0, text: current.text, logprobs: [] }));
      events.push(
        emit('response.content_part.done', { ...common(current), content_index: 0, part: { type: 'output_text', text: current.text, annotations: [] } }),
      );
    } else if (item.type === 'reasoning') {
      item = reasoningItem(start.id, current.text);
      events.push(emit('response.reasoning_summary_text.done', { ...common(current), summary_index: 0, text: current.text }));
      events.push(emit('response.reasoning_summary_part.done', { ...common(current), summary_index: 0, part: { type: 'summary_text', text: current.text } }));
    } else {
      item = toolItem(request, start.id, current.toolIndex, item['call_id'] as string, current.item['chatName'] as string, current.text);
      if (item.type === 'function_call') events.push(emit('response.function_call_arguments.done', { ...common(current), arguments: current.text }));
      else {
        const input = item['input'] as string;
        events.push(emit('response.custom_tool_call_input.delta', { ...common(current), delta: input }));
        events.push(emit('response.custom_tool_call_input.done', { ...common(current), input }));
      }
    }
    events.push(emit('response.output_item.done', { output_index: output.length, item }));
    output.push(item);
    return events;
  };

  const begin = (item: OutputItem, shown: OutputItem, toolIndex = -1): { events: StreamEvent[]; current: OpenItem } => {
    const events = close();
    const current: OpenItem = { item, text: '', toolIndex };
    open = current;
    events.push(emit('response.output_item.added', { output_index: output.length, item: shown }));
    return { events, current };
  };

  return {
    start() {
      const pending = responseShell(request, start.id, start.created);
      return [emit('response.created', { response: pending }), emit('response.in_progress', { response: pending })];
    },
    write(delta) {
      if (delta.type === 'reasoning') {
        let events: StreamEvent[] = [];
        let current = open?.item.type === 'reasoning' ? open : null;
        if (!current) {
          const item = reasoningItem(start.id, '');
          ({ events, current } = begin(item, { ...item, summary: [] }));
          events.push(emit('response.reasoning_summary_part.added', { ...common(current), summary_index: 0, part: { type: 'summary_text', text: '' } }));
        }
        current.text += delta.text;
        events.push(emit('response.reasoning_summary_text.delta', { ...common(current), summary_index: 0, delta: delta.text }));
        return events;
      }
      if (delta.type === 'text') {
        let events: StreamEvent[] = [];
        let current = open?.item.type === 'message' ? open : null;
        if (!current) {
          const item = messageItem(start.id, '');
          ({ events, current } = begin(item, { ...item, status: 'in_progress', content: [] }));
          events.push(emit('response.content_part.added', { ...common(current), content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }));
        }
        current.text += delta.text;
        events.push(emit('response.output_text.delta', { ...common(current), content_index: 0, delta: delta.text, logprobs: [] }));
        return events;
      }
      let events: StreamEvent[] = [];
      let current = open && open.toolIndex === delta.index ? open : null;
      if (!current) {
        const chatName = delta.name ?? '';
        const callId = delta.id ?? `call_${start.id}_${delta.index}`;
        const shown = toolItem(request, start.id, delta.index, callId, chatName, '');
        const inProgress = shown.type === 'function_call' ? { ...shown, status: 'in_progress', arguments: '' } : { ...shown, status: 'in_progress', input: '' };
        ({ events, current } = begin({ ...shown, chatName }, inProgress, delta.index));
      }
      current.text += delta.arguments;
      if (current.item.type === 'function_call' && delta.arguments !== '')
        events.push(emit('response.function_call_arguments.delta', { ...common(current), delta: delta.arguments }));
      return events;
    },
    finish(answer) {
      const events = close();
      const final = responsesBody(answer, request, output);
      events.push(emit(final.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response: final }));
      return events;
    },
  };
}

/** A failure after the stream started: `response.failed` with the code Codex reacts to (context_length_exceeded, rate_limit_exceeded). */
export function responsesFailedEvents(error: ProxyError): StreamEvent[] {
  const code = error.kind === 'context_length' ? 'context_length_exceeded' : error.kind === 'rate_limit' ? 'rate_limit_exceeded' : 'server_error';
  const response = {
    id: 'resp_failed',
    object: 'response',
    status: 'failed',
    error: { code, message: error.message },
    incomplete_details: null,
    output: [],
    usage: null,
  };
  return [{ event: 'response.failed', data: { type: 'response.failed', sequence_number: 0, response } }];
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
