/**
 * Chat Completions stream chunks, read as they arrive: each chunk's delta as StreamDeltas for the CLI's writer,
 * and everything kept to assemble the whole chat.completion body at the end, which the non-streaming path's
 * reader then reads, so a streamed call is recorded exactly as a whole one. vLLM's token data is kept as sent:
 * prompt_token_ids (top level or on the choice, usually in the first chunk), token_ids per chunk, and
 * logprobs.content per chunk, concatenated in order, never re-tokenised.
 */
import type { StreamDelta } from './dialect.js';
import { asArray, asRecord, asString, type JsonRecord } from './json-values.js';

interface CallParts {
  id?: string;
  name?: string;
  arguments: string;
}

export class ChunkAssembler {
  private id: string | undefined;
  private model: string | undefined;
  private created: number | undefined;
  private content = '';
  private reasoning = '';
  private readonly calls = new Map<number, CallParts>();
  private finishReason: string | null = null;
  private usage: unknown = undefined;
  private promptTokenIds: unknown = undefined;
  private readonly tokenIds: number[] = [];
  private readonly logprobs: unknown[] = [];
  private sawTokenIds = false;
  private sawLogprobs = false;
  /** How many chunks were read (a stream with none is not an answer). */
  chunks = 0;

  get upstreamId(): string | undefined {
    return this.id;
  }

  get upstreamModel(): string | undefined {
    return this.model;
  }

  push(chunk: JsonRecord): StreamDelta[] {
    this.chunks++;
    this.id ??= asString(chunk['id']);
    this.model ??= asString(chunk['model']);
    if (typeof chunk['created'] === 'number') this.created ??= chunk['created'];
    if (chunk['usage'] !== undefined && chunk['usage'] !== null) this.usage = chunk['usage'];
    if (Array.isArray(chunk['prompt_token_ids'])) this.promptTokenIds = chunk['prompt_token_ids'];
    const choice = asRecord(asArray(chunk['choices'])[0]);
    if (!choice) return [];
    if (Array.isArray(choice['prompt_token_ids'])) this.promptTokenIds = choice['prompt_token_ids'];
    if (Array.isArray(choice['token_ids'])) {
      this.sawTokenIds = true;
      for (const id of choice['token_ids']) this.tokenIds.push(id as number);
    }
    const logprobContent = asRecord(choice['logprobs'])?.['content'];
    if (Array.isArray(logprobContent)) {
      this.sawLogprobs = true;
      for (const entry of logprobContent) this.logprobs.push(entry);
    }
    if (typeof choice['finish_reason'] === 'string') this.finishReason = choice['finish_reason'];
    const delta = asRecord(choice['delta']);
    if (!delta) return [];
    const deltas: StreamDelta[] = [];
    const reasoning = asString(delta['reasoning_content']) ?? asString(delta['reasoning']);
    if (reasoning) {
      this.reasoning += reasoning;
      deltas.push({ type: 'reasoning', text: reasoning });
    }
    const content = asString(delta['content']);
    if (content) {
      this.content += content;
      deltas.push({ type: 'text', text: content });
    }
    asArray(delta['tool_calls']).forEach((value, position) => {
      const call = asRecord(value);
      if (!call) return;
      const index = typeof call['index'] === 'number' ? call['index'] : position;
      const fn = asRecord(call['function']);
      const rawArguments = fn?.['arguments'];
      const args = typeof rawArguments === 'string' ? rawArguments : rawArguments === undefined || rawArguments === null ? '' : JSON.stringify(rawArguments);
      const known = this.calls.get(index);
      const parts = known ?? { arguments: '' };
      parts.id ??= asString(call['id']) || undefined;
      parts.name ??= asString(fn?.['name']) || undefined;
      parts.arguments += args;
      if (!known) this.calls.set(index, parts);
      if (!known || args !== '') deltas.push({ type: 'tool-call', index, ...(known ? {} : { id: parts.id, name: parts.name }), arguments: args });
    });
    return deltas;
  }

  /** The whole answer as a chat.completion body. */
  body(): JsonRecord {
    const indexes = [...this.calls.keys()].sort((left, right) => left - right);
    const message: JsonRecord = { role: 'assistant', content: this.content === '' && indexes.length > 0 ? null : this.content };
    if (this.reasoning !== '') message['reasoning_content'] = this.reasoning;
    if (indexes.length > 0)
      message['tool_calls'] = indexes.map((index) => {
        const call = this.calls.get(index)!;
        return { id: call.id, type: 'function', function: { name: call.name ?? '', arguments: call.arguments } };
      });
    const choice: JsonRecord = { index: 0, message, finish_reason: this.finishReason, logprobs: this.sawLogprobs ? { content: this.logprobs } : null };
    if (this.sawTokenIds) choice['token_ids'] = this.tokenIds;
    return {
      id: this.id,
      object: 'chat.completion',
      created: this.created,
      model: this.model,
      choices: [choice],
      ...(this.usage !== undefined ? { usage: this.usage } : {}),
      ...(this.promptTokenIds !== undefined ? { prompt_token_ids: this.promptTokenIds } : {}),
    };
  }
}
