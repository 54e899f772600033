// What a sandbox can and cannot make the recording proxy send upstream or show back, over real HTTP against the
// scripted model: only allow-listed request fields and content parts reach the upstream (data: image URLs only), the
// operator's key never comes back inside an upstream error, and a body nested too deep is a 400, not a crash.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelProxy, type ModelProxy } from '../../src/model-proxy/model-proxy.js';
import {
  type ChatCompletionRequestBody,
  type ModelReply,
  type ScriptedModelServer,
  startScriptedModelServer,
} from '../../src/testing/scripted-model-server.js';

const UPSTREAM_KEY = 'sk-operator-0123456789abcdef';

/** "leak-key" fails with the operator's key in the error text (as some servers echo the key they refused). */
function script(request: ChatCompletionRequestBody): ModelReply {
  const text = JSON.stringify(request.messages.at(-1)?.content ?? '');
  if (text.includes('deep-arguments'))
    return { kind: 'tool-calls', toolCalls: [{ id: 'call_deep', name: 'f', arguments: `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}` }] };
  if (text.includes('leak-key')) return { kind: 'http-error', status: 401, message: `Incorrect API key provided: ${UPSTREAM_KEY}.` };
  if (text.includes('leak-stream'))
    return { kind: 'text', content: 'some words then', failAfterFirstDelta: { message: `generation failed for key ${UPSTREAM_KEY}`, code: 500 } };
  return { kind: 'text', content: 'fine' };
}

let model: ScriptedModelServer;
let proxy: ModelProxy;

beforeAll(async () => {
  model = await startScriptedModelServer(script);
  proxy = await startModelProxy({ upstream: { baseURL: model.baseURL, apiKey: UPSTREAM_KEY, model: 'upstream-model' }, listen: { port: 0 } });
});

afterAll(async () => {
  await proxy.close();
  await model.close();
});

type DialectName = 'chat' | 'responses' | 'anthropic' | 'gemini';
const DIALECTS: DialectName[] = ['chat', 'responses', 'anthropic', 'gemini'];

/** A request in the dialect's own shape whose last user turn is `parts` (the dialect's content parts). */
function requestOf(
  dialect: DialectName,
  key: string,
  userContent: unknown,
  extra: Record<string, unknown> = {},
  stream = false,
): { path: string; headers: Record<string, string>; body: Record<string, unknown> } {
  switch (dialect) {
    case 'chat':
      return {
        path: '/v1/chat/completions',
        headers: { authorization: `Bearer ${key}` },
        body: { model: 'm', stream, messages: [{ role: 'user', content: userContent }], ...extra },
      };
    case 'responses':
      return {
        path: '/v1/responses',
        headers: { authorization: `Bearer ${key}` },
        body: { model: 'm', stream, input: [{ role: 'user', content: userContent }], ...extra },
      };
    case 'anthropic':
      return {
        path: '/v1/messages',
        headers: { 'x-api-key': key },
        body: { model: 'c', max_tokens: 9, stream, messages: [{ role: 'user', content: userContent }], ...extra },
      };
    case 'gemini':
      return {
        path: stream ? '/v1beta/models/g:streamGenerateContent?alt=sse' : '/v1beta/models/g:generateContent',
        headers: { 'x-goog-api-key': key },
        body: { contents: [{ role: 'user', parts: userContent }], ...extra },
      };
  }
}

const TEXT_PART: Record<DialectName, (text: string) => unknown> = {
  chat: (text) => [{ type: 'text', text }],
  responses: (text) => [{ type: 'input_text', text }],
  anthropic: (text) => [{ type: 'text', text }],
  gemini: (text) => [{ text }],
};

async function send(dialect: DialectName, key: string, userContent: unknown, extra: Record<string, unknown> = {}, stream = false, deep?: string) {
  const { path, headers, body } = requestOf(dialect, key, userContent, extra, stream);
  // A value nested deeper than JSON.stringify can go is spliced in as text where the body holds DEEP.
  const text = deep === undefined ? JSON.stringify(body) : JSON.stringify(body).replace(JSON.stringify(DEEP), deep);
  const response = await fetch(`${proxy.origin}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: text });
  return { status: response.status, text: await response.text() };
}

const DEEP = '<deep value>';

describe('what reaches the upstream', () => {
  it('Chat Completions fields that steer the upstream (n, best_of, chat templates, processor kwargs, prompt logprobs) stay behind', async () => {
    const rollout = await proxy.openRollout();
    const steering = {
      n: 64,
      best_of: 64,
      chat_template: '{{ raise_exception("x") }}',
      chat_template_kwargs: { enable_thinking: true },
      mm_processor_kwargs: { num_frames: 100000 },
      prompt_logprobs: 20,
      temperature: 0.3,
      max_tokens: 17,
    };
    const answer = await send('chat', rollout.apiKey, 'hello', steering);
    expect(answer.status).toBe(200);
    const sent = model.requests.at(-1)!.body;
    for (const field of ['n', 'best_of', 'chat_template', 'chat_template_kwargs', 'mm_processor_kwargs', 'prompt_logprobs'])
      expect(sent).not.toHaveProperty(field);
    expect(sent).toMatchObject({ temperature: 0.3, max_tokens: 17, messages: [{ role: 'user', content: 'hello' }] });
    expect(rollout.calls[0]!.request.sampling).not.toHaveProperty('n');
    await rollout.close();
  });

  const remoteImages: Record<DialectName, (url: string) => unknown> = {
    chat: (url) => [
      { type: 'text', text: 'look' },
      { type: 'image_url', image_url: { url } },
    ],
    responses: (url) => [
      { type: 'input_text', text: 'look' },
      { type: 'input_image', image_url: url },
    ],
    anthropic: (url) => [
      { type: 'text', text: 'look' },
      { type: 'image', source: { type: 'url', url } },
    ],
    gemini: (url) => [{ text: 'look' }, { fileData: { mimeType: 'image/png', fileUri: url } }],
  };

  it('a remote or file image URL is refused with 400 in every dialect and never reaches the upstream', async () => {
    const rollout = await proxy.openRollout();
    const before = model.requests.length;
    for (const dialect of DIALECTS) {
      for (const url of ['http://169.254.169.254/latest/meta-data/iam', 'file:///etc/passwd']) {
        const answer = await send(dialect, rollout.apiKey, remoteImages[dialect](url));
        // Gemini file data has no translation at all: the part is left out, never sent.
        if (dialect === 'gemini') expect(answer.status).toBe(200);
        else expect({ dialect, status: answer.status, text: answer.text }).toMatchObject({ status: 400, text: expect.stringContaining('data:') as unknown });
      }
    }
    const sent = JSON.stringify(model.requests.slice(before).map((request) => request.body));
    expect(sent).not.toContain('169.254.169.254');
    expect(sent).not.toContain('file://');
    await rollout.close();
  });

  it('video, audio and file parts and non-image data URLs are refused; a data: image goes through', async () => {
    const rollout = await proxy.openRollout();
    const before = model.requests.length;
    const refused = [
      [{ type: 'video_url', video_url: { url: 'http://example.test/v.mp4' } }],
      [{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }],
      [{ type: 'file', file: { file_id: 'file-1' } }],
      [{ type: 'image_url', image_url: { url: 'data:text/html;base64,PGgxPg==' } }],
    ];
    for (const content of refused) expect((await send('chat', rollout.apiKey, content)).status).toBe(400);
    expect((await send('gemini', rollout.apiKey, [{ text: 'pdf' }, { inlineData: { mimeType: 'application/pdf', data: 'JVBERg==' } }])).status).toBe(400);
    expect((await send('anthropic', rollout.apiKey, [{ type: 'image', source: { type: 'base64', media_type: 'text/html', data: 'PGgxPg==' } }])).status).toBe(
      400,
    );
    expect(model.requests.length).toBe(before);
    const image = 'data:image/png;base64,iVBORw0KGgo=';
    expect(
      (
        await send('chat', rollout.apiKey, [
          { type: 'text', text: 'see' },
          { type: 'image_url', image_url: { url: image, detail: 'low' } },
        ])
      ).status,
    ).toBe(200);
    expect((await send('gemini', rollout.apiKey, [{ text: 'see' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }])).status).toBe(200);
    expect(model.requests.at(-2)!.body.messages[0]!.content).toEqual([
      { type: 'text', text: 'see' },
      { type: 'image_url', image_url: { url: image, detail: 'low' } },
    ]);
    await rollout.close();
  });

  it('message fields outside Chat Completions (a client-chosen name, audio, unknown keys) are not forwarded', async () => {
    const rollout = await proxy.openRollout();
    const { path, headers } = requestOf('chat', rollout.apiKey, 'x');
    const body = {
      model: 'm',
      messages: [
        { role: 'system', content: 'sys', cache_control: { type: 'ephemeral' } },
        { role: 'user', content: 'hi', name: 'admin', audio: { id: 'a' }, chat_template: 'x' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' }, extra: 1 }] },
        { role: 'tool', tool_call_id: 'c1', content: 'ok' },
      ],
    };
    const response = await fetch(`${proxy.origin}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    expect(model.requests.at(-1)!.body.messages).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'ok' },
    ]);
    await rollout.close();
  });
});

describe('what comes back from the upstream', () => {
  it('an upstream error that names the operator’s key reaches no dialect with the key, whole or streamed, nor the record', async () => {
    const rollout = await proxy.openRollout();
    for (const dialect of DIALECTS) {
      for (const [text, stream] of [
        ['leak-key', false],
        ['leak-key', true],
        ['leak-stream', true],
      ] as const) {
        const answer = await send(dialect, rollout.apiKey, TEXT_PART[dialect](text), {}, stream);
        expect(answer.text.length).toBeGreaterThan(0);
        expect({ dialect, text, stream, body: answer.text }).not.toMatchObject({ body: expect.stringContaining(UPSTREAM_KEY) as unknown });
      }
    }
    expect(rollout.calls.length).toBe(12);
    expect(rollout.calls.every((call) => call.error !== null && !call.error.message.includes(UPSTREAM_KEY))).toBe(true);
    expect(rollout.calls.some((call) => call.error!.message.includes('<upstream key>'))).toBe(true);
    await rollout.close();
  });
});

describe('deeply nested bodies', () => {
  const nestedArrays = (depth: number) => `${'['.repeat(depth)}"x"${']'.repeat(depth)}`;
  const nestedObjects = (depth: number) => `${'{"inner":'.repeat(depth)}"leaf"${'}'.repeat(depth)}`;

  it('content and tool schemas nested 20,000 deep are a 400 in every dialect, not a 500; such tool arguments from the model are answered', async () => {
    const rollout = await proxy.openRollout();
    const before = model.requests.length;
    const cases: [DialectName, unknown, Record<string, unknown>, string][] = [
      ['chat', DEEP, {}, nestedArrays(20_000)],
      ['chat', 'hi', { tools: [{ type: 'function', function: { name: 'f', parameters: DEEP } }] }, nestedObjects(20_000)],
      ['responses', [{ type: 'input_text', text: 'x' }], { tools: [{ type: 'function', name: 'f', parameters: DEEP }] }, nestedObjects(20_000)],
      ['anthropic', [{ type: 'text', text: 'x' }], { tools: [{ name: 'f', input_schema: DEEP }] }, nestedObjects(20_000)],
      ['gemini', [{ functionResponse: { name: 'f', response: DEEP } }], {}, nestedObjects(20_000)],
    ];
    for (const [dialect, content, extra, deep] of cases) {
      const answer = await send(dialect, rollout.apiKey, content, extra, false, deep);
      expect({ dialect, status: answer.status, text: answer.text.slice(0, 300) }).toMatchObject({
        status: 400,
        text: expect.stringContaining('nested') as unknown,
      });
    }
    expect(model.requests.length).toBe(before);
    // The model's own tool arguments nested that deep are answered, not a 500.
    for (const dialect of DIALECTS) {
      for (const stream of [false, true]) {
        const answer = await send(dialect, rollout.apiKey, TEXT_PART[dialect]('deep-arguments'), {}, stream);
        expect({ dialect, stream, status: answer.status }).toEqual({ dialect, stream, status: 200 });
        expect(answer.text).toContain('call_deep');
        // Where the dialect carries arguments as an object, a whole answer keeps them as text under _raw_arguments.
        if (!stream && (dialect === 'anthropic' || dialect === 'gemini')) expect(answer.text).toContain('_raw_arguments');
      }
    }
    // A realistic depth (a JSON schema a few dozen levels deep) still goes through.
    const schema = nestedObjects(40)
      .replace(/"inner":/g, '"type":"object","properties":{"p":')
      .replace(/}+$/, (closing) => '}}'.repeat(closing.length));
    const fine = await send('chat', rollout.apiKey, 'hi', { tools: [{ type: 'function', function: { name: 'f', parameters: DEEP } }] }, false, schema);
    expect(fine.status).toBe(200);
    await rollout.close();
  });
});
