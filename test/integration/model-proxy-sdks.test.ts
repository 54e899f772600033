// The recording proxy in front of the scripted model server, driven by each dialect's official SDK (openai for Chat
// Completions and Responses, @anthropic-ai/sdk, @google/genai), streaming and not, tool calls both ways.
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startModelProxy, type ModelProxy } from '../../src/model-proxy/model-proxy.js';
import type { ProxyRollout } from '../../src/model-proxy/proxy-rollout.js';
import { startScriptedModelServer, type ChatCompletionRequestBody, type ScriptedModelServer } from '../../src/testing/scripted-model-server.js';

const TOKENS = { promptTokenIds: [11, 12, 13], completionTokenIds: [21, 22], logprobs: [-0.5, -0.125] };

/** Asks for `shell` while the last message is not a tool result, then answers with the tool's output. */
function twoStepScript(request: ChatCompletionRequestBody) {
  const last = request.messages[request.messages.length - 1];
  if (last?.role === 'tool') return { kind: 'text' as const, content: `tool said: ${last.content}`, tokens: TOKENS };
  return {
    kind: 'tool-calls' as const,
    content: 'Running it.',
    toolCalls: [{ id: 'call_sh', name: 'shell', arguments: { command: 'echo hi' } }],
    tokens: TOKENS,
  };
}

let model: ScriptedModelServer;
let proxy: ModelProxy;
let rollout: ProxyRollout;

beforeAll(async () => {
  model = await startScriptedModelServer(twoStepScript);
  proxy = await startModelProxy({
    upstream: { baseURL: model.baseURL, model: 'upstream-model' },
    forcedArgs: { temperature: 0.7, max_tokens: 256, seed: 5, logprobs: true, return_token_ids: true },
    listen: { port: 0 },
  });
});

afterAll(async () => {
  await proxy.close();
  await model.close();
});

beforeEach(async () => {
  model.requests.length = 0;
  rollout = await proxy.openRollout({ rolloutId: 'sdk' });
});

const shellParameters = { type: 'object' as const, properties: { command: { type: 'string' } }, required: ['command'] };

/** Every call went upstream as Chat Completions with the operator's sampling, and was recorded with the scripted tokens. */
function expectRecordedCalls(dialect: string, streams: boolean[]) {
  const count = streams.length;
  expect(rollout.calls).toHaveLength(count);
  for (const [index, call] of rollout.calls.entries()) {
    expect(call).toMatchObject({ index, rolloutId: 'sdk', dialect, stream: streams[index], error: null });
    expect(call.tokens).toEqual({
      prompt_token_ids: TOKENS.promptTokenIds,
      completion_token_ids: TOKENS.completionTokenIds,
      completion_logprobs: TOKENS.logprobs,
    });
    expect(call.request.sampling).toMatchObject({ temperature: 0.7, max_tokens: 256, seed: 5, logprobs: true, return_token_ids: true });
  }
  expect(model.requests).toHaveLength(count);
  for (const [index, request] of model.requests.entries()) {
    // A streamed call is streamed upstream too, with its usage asked for.
    expect(request.body).toMatchObject({ model: 'upstream-model', stream: streams[index], temperature: 0.7, max_tokens: 256 });
    expect(request.body['stream_options']).toEqual(streams[index] ? { include_usage: true } : undefined);
    expect(request.headers.authorization).toBe('Bearer EMPTY');
  }
  expect(rollout.calls[0]!.response?.tool_calls?.[0]?.function.name).toBe('shell');
  expect(rollout.calls[1]!.request.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_sh', content: 'hi' });
  expect(rollout.conversation().at(-1)).toEqual({ role: 'assistant', content: 'tool said: hi' });
}

describe('Chat Completions through the openai SDK', () => {
  const tools = [{ type: 'function' as const, function: { name: 'shell', parameters: shellParameters } }];

  it.each([false, true])('runs a tool call and its result (stream %s)', async (stream) => {
    const client = new OpenAI({ baseURL: `${proxy.origin}/v1`, apiKey: rollout.apiKey, maxRetries: 0 });
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'run echo hi' }];
    const first = stream
      ? await client.chat.completions.stream({ model: 'cli-model', messages, tools, temperature: 0.1, stream: true }).finalChatCompletion()
      : await client.chat.completions.create({ model: 'cli-model', messages, tools, temperature: 0.1 });
    const call = first.choices[0]!.message.tool_calls![0]!;
    expect(call.type === 'function' && call.function).toEqual({ name: 'shell', arguments: '{"command":"echo hi"}' });
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    messages.push(first.choices[0]!.message as OpenAI.ChatCompletionMessageParam, { role: 'tool', tool_call_id: call.id, content: 'hi' });
    const second = await client.chat.completions.create({ model: 'cli-model', messages, tools });
    expect(second.choices[0]!.message.content).toBe('tool said: hi');
    expectRecordedCalls('chat', [stream, false]);
  });
});

describe('Responses through the openai SDK', () => {
  const tools: OpenAI.Responses.Tool[] = [{ type: 'function', name: 'shell', parameters: shellParameters, strict: false }];

  it.each([false, true])('runs a function_call and its output (stream %s)', async (stream) => {
    const client = new OpenAI({ baseURL: `${proxy.origin}/v1`, apiKey: rollout.apiKey, maxRetries: 0 });
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: 'run echo hi' }];
    let first: OpenAI.Responses.Response;
    if (stream) {
      const types: string[] = [];
      const events = client.responses.stream({ model: 'cli-model', input, tools, store: false });
      for await (const event of events) types.push(event.type);
      first = await events.finalResponse();
      expect(types[0]).toBe('response.created');
      expect(types.at(-1)).toBe('response.completed');
      expect(types).toContain('response.function_call_arguments.done');
    } else first = await client.responses.create({ model: 'cli-model', input, tools, store: false });
    const call = first.output.find((item) => item.type === 'function_call')!;
    expect(call).toMatchObject({ type: 'function_call', name: 'shell', call_id: 'call_sh', arguments: '{"command":"echo hi"}' });
    expect(first.output_text).toBe('Running it.');
    input.push(...(first.output as OpenAI.Responses.ResponseInputItem[]), { type: 'function_call_output', call_id: 'call_sh', output: 'hi' });
    const second = await client.responses.create({ model: 'cli-model', input, tools, store: false });
    expect(second.output_text).toBe('tool said: hi');
    expect(second.usage).toMatchObject({ input_tokens: 3, output_tokens: 2 });
    expectRecordedCalls('responses', [stream, false]);
  });
});

describe('Anthropic Messages through @anthropic-ai/sdk', () => {
  const tools: Anthropic.Tool[] = [{ name: 'shell', input_schema: shellParameters }];

  it.each([false, true])('runs a tool_use and its tool_result (stream %s)', async (stream) => {
    const client = new Anthropic({ baseURL: proxy.origin!, apiKey: rollout.apiKey, maxRetries: 0 });
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'run echo hi' }];
    const request = { model: 'claude-cli', max_tokens: 1024, system: 'You are terse.', messages, tools };
    const first = stream ? await client.messages.stream(request).finalMessage() : await client.messages.create(request);
    expect(first.stop_reason).toBe('tool_use');
    expect(first.content).toEqual([
      { type: 'text', text: 'Running it.' },
      { type: 'tool_use', id: 'call_sh', name: 'shell', input: { command: 'echo hi' } },
    ]);
    messages.push({ role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_sh', content: 'hi' }] });
    const second = await client.messages.create({ ...request, messages });
    expect(second.content).toEqual([{ type: 'text', text: 'tool said: hi' }]);
    expect(second.usage).toMatchObject({ input_tokens: 3, output_tokens: 2 });
    expectRecordedCalls('anthropic', [stream, false]);
    expect(rollout.calls[0]!.request.messages[0]).toEqual({ role: 'system', content: 'You are terse.' });
  });
});

describe('Gemini through @google/genai', () => {
  const config = { tools: [{ functionDeclarations: [{ name: 'shell', parametersJsonSchema: shellParameters }] }], temperature: 0.2 };

  it.each([false, true])('runs a functionCall and its functionResponse (stream %s)', async (stream) => {
    const client = new GoogleGenAI({ apiKey: rollout.apiKey, httpOptions: { baseUrl: proxy.origin! } });
    const contents: { role: string; parts: Record<string, unknown>[] }[] = [{ role: 'user', parts: [{ text: 'run echo hi' }] }];
    let parts: Record<string, unknown>[] = [];
    if (stream) {
      // Text arrives a delta per chunk; Gemini CLI joins consecutive text parts, as this does.
      for await (const chunk of await client.models.generateContentStream({ model: 'gemini-cli-model', contents, config }))
        for (const part of (chunk.candidates?.[0]?.content?.parts ?? []) as Record<string, unknown>[]) {
          const last = parts.at(-1);
          if (typeof part['text'] === 'string' && typeof last?.['text'] === 'string') last['text'] += part['text'];
          else parts.push({ ...part });
        }
    } else {
      const first = await client.models.generateContent({ model: 'gemini-cli-model', contents, config });
      expect(first.functionCalls).toEqual([{ id: 'call_sh', name: 'shell', args: { command: 'echo hi' } }]);
      parts = (first.candidates?.[0]?.content?.parts ?? []) as Record<string, unknown>[];
    }
    expect(parts).toEqual([{ text: 'Running it.' }, { functionCall: { id: 'call_sh', name: 'shell', args: { command: 'echo hi' } } }]);
    contents.push({ role: 'model', parts }, { role: 'user', parts: [{ functionResponse: { id: 'call_sh', name: 'shell', response: { output: 'hi' } } }] });
    const second = await client.models.generateContent({ model: 'gemini-cli-model', contents, config });
    expect(second.text).toBe('tool said: hi');
    expect(second.usageMetadata).toMatchObject({ promptTokenCount: 3, candidatesTokenCount: 2 });
    expectRecordedCalls('gemini', [stream, false]);
    expect(rollout.calls[0]!.clientModel).toBe('gemini-cli-model');
  });
});

describe('reasoning (vLLM reasoning_content) in each dialect’s own form', () => {
  it('reaches Responses as a reasoning item, Anthropic as a thinking block, Gemini as a thought part, Chat as reasoning_content', async () => {
    const thinking = await startScriptedModelServer(() => ({ kind: 'text', content: 'answer', reasoning: 'because', tokens: TOKENS }));
    const thinkingProxy = await startModelProxy({ upstream: { baseURL: thinking.baseURL, model: 'upstream-model' }, listen: { port: 0 } });
    try {
      const own = await thinkingProxy.openRollout();
      const openai = new OpenAI({ baseURL: `${thinkingProxy.origin}/v1`, apiKey: own.apiKey, maxRetries: 0 });
      const response = await openai.responses.stream({ model: 'm', input: 'why', store: false }).finalResponse();
      expect(response.output[0]).toMatchObject({ type: 'reasoning', summary: [{ type: 'summary_text', text: 'because' }] });
      expect(response.output_text).toBe('answer');
      const anthropic = new Anthropic({ baseURL: thinkingProxy.origin!, apiKey: own.apiKey, maxRetries: 0 });
      const message = await anthropic.messages.stream({ model: 'c', max_tokens: 100, messages: [{ role: 'user', content: 'why' }] }).finalMessage();
      expect(message.content).toEqual([
        { type: 'thinking', thinking: 'because', signature: expect.any(String) as unknown },
        { type: 'text', text: 'answer' },
      ]);
      const genai = new GoogleGenAI({ apiKey: own.apiKey, httpOptions: { baseUrl: thinkingProxy.origin! } });
      const gemini = await genai.models.generateContent({ model: 'g', contents: 'why' });
      expect(gemini.candidates?.[0]?.content?.parts).toEqual([{ text: 'because', thought: true }, { text: 'answer' }]);
      expect(gemini.text).toBe('answer');
      const chat = await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'why' }] });
      expect(chat.choices[0]!.message).toMatchObject({ content: 'answer', reasoning_content: 'because' });
      expect(own.calls.map((call) => call.response?.reasoning_content)).toEqual(['because', 'because', 'because', 'because']);
    } finally {
      await thinkingProxy.close();
      await thinking.close();
    }
  });
});

describe('incremental streaming: deltas reach the SDK while upstream is still generating', () => {
  /** A gate per call: upstream sends its first delta, then holds the rest until the test's client has seen it. */
  let gates: { open: () => void; promise: Promise<unknown> }[] = [];
  let held: ScriptedModelServer;
  let heldProxy: ModelProxy;

  beforeAll(async () => {
    held = await startScriptedModelServer((_request, index) => ({
      kind: 'text',
      content: 'first second third',
      tokens: TOKENS,
      holdAfterFirstDelta: gates[index]!.promise,
    }));
    heldProxy = await startModelProxy({ upstream: { baseURL: held.baseURL, model: 'upstream-model' }, listen: { port: 0 } });
  });

  afterAll(async () => {
    for (const gate of gates) gate.open();
    await heldProxy.close();
    await held.close();
  });

  /** The client saw `first ` while upstream still held the rest: had the proxy waited for the whole answer, it would hang here. */
  async function expectIncremental(read: (onText: (text: string) => void) => Promise<void>) {
    let open!: () => void;
    const promise = new Promise<void>((resolve) => (open = resolve));
    gates = [...gates, { open, promise }];
    const own = await heldProxy.openRollout();
    const log: string[] = [];
    let released = false;
    await read((text) => {
      log.push(`${released ? 'after' : 'before'} release: ${text}`);
      if (!released) {
        released = true;
        open();
      }
    });
    return { log, own };
  }

  it('Chat Completions, Responses, Anthropic Messages and Gemini each hand over the first text delta before the rest exists', async () => {
    const rollouts: ProxyRollout[] = [];
    const key = async () => {
      const own = await heldProxy.openRollout();
      rollouts.push(own);
      return own.apiKey;
    };
    const runs = [
      async (onText: (text: string) => void) => {
        const client = new OpenAI({ baseURL: `${heldProxy.origin}/v1`, apiKey: await key(), maxRetries: 0 });
        const stream = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'go' }], stream: true });
        for await (const chunk of stream) if (chunk.choices[0]?.delta?.content) onText(chunk.choices[0].delta.content);
      },
      async (onText: (text: string) => void) => {
        const client = new OpenAI({ baseURL: `${heldProxy.origin}/v1`, apiKey: await key(), maxRetries: 0 });
        const stream = await client.responses.create({ model: 'm', input: 'go', store: false, stream: true });
        for await (const event of stream) if (event.type === 'response.output_text.delta') onText(event.delta);
      },
      async (onText: (text: string) => void) => {
        const client = new Anthropic({ baseURL: heldProxy.origin!, apiKey: await key(), maxRetries: 0 });
        const stream = await client.messages.create({ model: 'c', max_tokens: 100, messages: [{ role: 'user', content: 'go' }], stream: true });
        for await (const event of stream) if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') onText(event.delta.text);
      },
      async (onText: (text: string) => void) => {
        const client = new GoogleGenAI({ apiKey: await key(), httpOptions: { baseUrl: heldProxy.origin! } });
        for await (const chunk of await client.models.generateContentStream({ model: 'g', contents: 'go' })) if (chunk.text) onText(chunk.text);
      },
    ];
    for (const run of runs) {
      const { log } = await expectIncremental(run);
      expect(log).toEqual(['before release: first ', 'after release: second ', 'after release: third']);
    }
    // Each call is recorded whole, with the token ids and logprobs the stream carried chunk by chunk.
    const calls = rollouts.map((own) => own.calls[0]!);
    expect(calls.map((call) => [call.dialect, call.stream, call.response?.content])).toEqual([
      ['chat', true, 'first second third'],
      ['responses', true, 'first second third'],
      ['anthropic', true, 'first second third'],
      ['gemini', true, 'first second third'],
    ]);
    for (const call of calls) {
      expect(call.tokens).toEqual({
        prompt_token_ids: TOKENS.promptTokenIds,
        completion_token_ids: TOKENS.completionTokenIds,
        completion_logprobs: TOKENS.logprobs,
      });
      expect(call.usage).toEqual({ prompt_tokens: 3, completion_tokens: 2 });
    }
    // A proxy that waited for the whole answer would never release the gate: this fails by timing out.
  }, 30_000);
});

describe('a failure in the middle of upstream’s stream', () => {
  it('reaches each CLI as its dialect’s in-stream error after the text so far, and is recorded with boundary model', async () => {
    const failing = await startScriptedModelServer(() => ({
      kind: 'text',
      content: 'partial answer',
      failAfterFirstDelta: { message: 'the engine died', code: 500 },
    }));
    const failingProxy = await startModelProxy({ upstream: { baseURL: failing.baseURL, model: 'upstream-model' }, listen: { port: 0 } });
    try {
      const own = await failingProxy.openRollout();
      const post = async (path: string, headers: Record<string, string>, body: unknown) => {
        const response = await fetch(`${failingProxy.origin}${path}`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        expect(response.status).toBe(200);
        return response.text();
      };
      const chat = await post(
        '/v1/chat/completions',
        { authorization: `Bearer ${own.apiKey}` },
        { model: 'm', stream: true, messages: [{ role: 'user', content: 'x' }] },
      );
      expect(chat).toMatch(/"content":"partial "[^]*data: \{"error":\{"message":"upstream model endpoint failed[^"]*the engine died/);
      expect(chat).not.toContain('[DONE]');
      const responses = await post('/v1/responses', { authorization: `Bearer ${own.apiKey}` }, { model: 'm', stream: true, input: 'x' });
      expect(responses).toMatch(/response\.output_text\.delta[^]*event: response\.failed\ndata: .*"code":"server_error"/);
      const anthropic = await post(
        '/v1/messages',
        { 'x-api-key': own.apiKey },
        { model: 'c', max_tokens: 5, stream: true, messages: [{ role: 'user', content: 'x' }] },
      );
      expect(anthropic).toMatch(/"text":"partial "[^]*event: error\ndata: \{"type":"error","error":\{"type":"api_error"/);
      expect(anthropic).not.toContain('message_stop');
      const gemini = await post(
        '/v1beta/models/g:streamGenerateContent?alt=sse',
        { 'x-goog-api-key': own.apiKey },
        { contents: [{ role: 'user', parts: [{ text: 'x' }] }] },
      );
      expect(gemini).toMatch(/"text":"partial "[^]*data: \{"error":\{"code":500,/);
      expect(own.calls.map((call) => [call.dialect, call.error?.code, call.response])).toEqual([
        ['chat', 'MODEL_ERR_SERVER', null],
        ['responses', 'MODEL_ERR_SERVER', null],
        ['anthropic', 'MODEL_ERR_SERVER', null],
        ['gemini', 'MODEL_ERR_SERVER', null],
      ]);
      expect(own.failure()).toMatchObject({ boundary: 'model', code: 'MODEL_ERR_SERVER', transient: true });
    } finally {
      await failingProxy.close();
      await failing.close();
    }
  });
});
