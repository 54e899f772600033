// The recording proxy's boundaries over real HTTP and unix sockets: upstream failures reach each client in its own
// dialect (status and body shape) and are recorded; keys are per rollout; a rollout's own socket serves it alone;
// the upstream URL and key never reach a client; the trajectory recorder gets every call as it happens.
import { request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CorralError } from '../../src/core/errors.js';
import { startModelProxy, type ModelProxy } from '../../src/model-proxy/model-proxy.js';
import { TrajectoryRecorder } from '../../src/runner/trajectory/trajectory-recorder.js';
import {
  startScriptedModelServer,
  type ChatCompletionRequestBody,
  type ModelReply,
  type ScriptedModelServer,
} from '../../src/testing/scripted-model-server.js';

/** Ten minutes: longer than any test timeout, so only an abort can end a wait this long. */
const STALL_MS = 600_000;

/** Replies held until the test opens the gate (after it has seen the stream's headers). */
const gates = (() => {
  let open: () => void = () => undefined;
  let opened = new Promise<void>((resolve) => (open = resolve));
  return {
    wait: () => opened,
    open: () => {
      open();
      opened = new Promise<void>((resolve) => (open = resolve));
    },
  };
})();

/** The last user message picks the reply: "status:429" fails with that status, "overflow" is a context overflow, else text. */
function script(request: ChatCompletionRequestBody): ModelReply | Promise<ModelReply> {
  const last = request.messages[request.messages.length - 1];
  const text = typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content);
  const status = /status:(\d+)/.exec(text);
  if (status) return { kind: 'http-error', status: Number(status[1]), message: `scripted failure ${status[1]}` };
  const gated = /gate:(\w+)/.exec(text);
  if (gated)
    return gates
      .wait()
      .then(() => (gated[1] === 'fail' ? { kind: 'http-error', status: 429, message: 'late failure' } : { kind: 'text', content: 'slow answer' }));
  if (text.includes('stall')) return { kind: 'text', content: 'too late', delayMs: STALL_MS };
  if (text.includes('overflow')) return { kind: 'http-error', status: 400, message: "This model's maximum context length is 8192 tokens" };
  return { kind: 'text', content: 'fine', tokens: { promptTokenIds: [1, 2], completionTokenIds: [3], logprobs: [-1] } };
}

let model: ScriptedModelServer;
let proxy: ModelProxy;
let folder: string;

beforeAll(async () => {
  model = await startScriptedModelServer(script);
  folder = mkdtempSync(join(tmpdir(), 'corral-proxy-'));
  proxy = await startModelProxy({
    upstream: { baseURL: model.baseURL, apiKey: 'upstream-secret', model: 'upstream-model' },
    listen: { port: 0, socketPath: join(folder, 'proxy.sock') },
    maxBodyBytes: 64 * 1024,
  });
});

afterAll(async () => {
  await proxy.close();
  await model.close();
  rmSync(folder, { recursive: true, force: true });
});

interface Reply {
  status: number;
  body: unknown;
  text: string;
}

/** One POST per dialect, over TCP or a unix socket, with the key where that dialect's clients put it. */
async function post(
  dialect: 'chat' | 'responses' | 'anthropic' | 'gemini',
  key: string | null,
  text: string,
  via: { socketPath?: string } = {},
): Promise<Reply> {
  const requests: Record<string, { path: string; headers: Record<string, string>; body: unknown }> = {
    chat: {
      path: '/v1/chat/completions',
      headers: key ? { authorization: `Bearer ${key}` } : {},
      body: { model: 'm', messages: [{ role: 'user', content: text }] },
    },
    responses: { path: '/v1/responses', headers: key ? { authorization: `Bearer ${key}` } : {}, body: { model: 'm', input: text } },
    anthropic: {
      path: '/v1/messages',
      headers: key ? { 'x-api-key': key } : {},
      body: { model: 'c', max_tokens: 10, messages: [{ role: 'user', content: text }] },
    },
    gemini: {
      path: '/v1beta/models/g:generateContent',
      headers: key ? { 'x-goog-api-key': key } : {},
      body: { contents: [{ role: 'user', parts: [{ text }] }] },
    },
  };
  const { path, headers, body } = requests[dialect]!;
  return rawPost(path, headers, JSON.stringify(body), via.socketPath);
}

function rawPost(path: string, headers: Record<string, string>, body: string, socketPath?: string, method = 'POST'): Promise<Reply> {
  const port = Number(new URL(proxy.origin!).port);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        ...(socketPath ? { socketPath } : { host: '127.0.0.1', port }),
        agent: false,
        method,
        path,
        headers: { 'content-type': 'application/json', ...headers },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = null;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = null;
          }
          resolve({ status: response.statusCode ?? 0, body: parsed, text });
        });
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

describe('upstream failures in each dialect', () => {
  it('a 429 keeps its status and takes each dialect’s error shape, and is recorded with boundary model', async () => {
    const rollout = await proxy.openRollout({ rolloutId: 'errors' });
    const chat = await post('chat', rollout.apiKey, 'status:429');
    const responses = await post('responses', rollout.apiKey, 'status:429');
    const anthropic = await post('anthropic', rollout.apiKey, 'status:429');
    const gemini = await post('gemini', rollout.apiKey, 'status:429');
    expect([chat.status, responses.status, anthropic.status, gemini.status]).toEqual([429, 429, 429, 429]);
    expect(chat.body).toMatchObject({ error: { type: 'rate_limit_exceeded', code: 'MODEL_ERR_RATE_LIMITED' } });
    expect(responses.body).toMatchObject({ error: { type: 'rate_limit_exceeded' } });
    expect(anthropic.body).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    expect(gemini.body).toMatchObject({ error: { code: 429, status: 'RESOURCE_EXHAUSTED' } });
    expect((anthropic.body as { error: { message: string } }).error.message).toContain('scripted failure 429');
    expect(rollout.calls.map((call) => call.error)).toEqual(
      Array(4).fill({ code: 'MODEL_ERR_RATE_LIMITED', status: 429, message: expect.stringContaining('scripted failure 429') as unknown }),
    );
    expect(rollout.failure()).toMatchObject({ boundary: 'model', code: 'MODEL_ERR_RATE_LIMITED', transient: true });
    expect((await post('chat', rollout.apiKey, 'now fine')).status).toBe(200);
    expect(rollout.failure()).toBeNull();
    await rollout.close();
  });

  it('a context overflow is a 400 Claude Code compacts on ("prompt is too long") and OpenAI clients read as context_length_exceeded', async () => {
    const rollout = await proxy.openRollout();
    const anthropic = await post('anthropic', rollout.apiKey, 'overflow');
    expect(anthropic.status).toBe(400);
    expect(anthropic.body).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringMatching(/^prompt is too long/) as unknown },
    });
    const chat = await post('chat', rollout.apiKey, 'overflow');
    expect(chat.body).toMatchObject({ error: { code: 'context_length_exceeded' } });
    expect(rollout.calls.map((call) => call.error?.code)).toEqual(['MODEL_ERR_CONTEXT_LENGTH', 'MODEL_ERR_CONTEXT_LENGTH']);
    await rollout.close();
  });

  it('an unreachable upstream is a 503 whose words name neither its address nor its key; the upstream key reached only upstream', async () => {
    const dead = await startScriptedModelServer(script);
    const deadURL = dead.baseURL;
    await dead.close();
    const lonely = await startModelProxy({ upstream: { baseURL: deadURL, apiKey: 'upstream-secret', model: 'x' }, listen: { port: 0 } });
    const rollout = await lonely.openRollout();
    const port = new URL(deadURL).port;
    const response = await fetch(`${lonely.origin}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': rollout.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'c', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }),
    });
    const text = await response.text();
    expect(response.status).toBe(503);
    expect(JSON.parse(text)).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });
    expect(text).not.toContain(port);
    expect(text).not.toContain('127.0.0.1');
    expect(text).not.toContain('upstream-secret');
    expect(rollout.calls[0]!.error).toMatchObject({ code: 'MODEL_ERR_CONNECTION', status: 503 });
    await lonely.close();

    const healthy = await proxy.openRollout();
    const ok = await post('chat', healthy.apiKey, 'hello');
    expect(ok.status).toBe(200);
    expect(ok.text).not.toContain('upstream-secret');
    expect(model.requests.at(-1)!.headers.authorization).toBe('Bearer upstream-secret');
    await healthy.close();
  });
});

describe('per-rollout credentials', () => {
  it('refuses no key, a wrong key and a closed rollout’s key with 401 in the dialect’s shape; probes need none', async () => {
    const rollout = await proxy.openRollout();
    expect((await post('anthropic', null, 'hi')).body).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    expect((await post('gemini', 'corral-proxy-guess', 'hi')).body).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED' } });
    expect((await post('chat', rollout.apiKey, 'hi')).status).toBe(200);
    await rollout.close();
    const afterClose = await post('responses', rollout.apiKey, 'hi');
    expect(afterClose.status).toBe(401);
    expect(afterClose.body).toMatchObject({ error: { type: 'authentication_error', code: 'PROXY_ERR_UNAUTHORIZED' } });
    expect(rollout.calls).toHaveLength(1);
    expect((await rawPost('/api/hello', {}, '', undefined, 'HEAD')).status).toBe(200);
    expect((await rawPost('/v1/embeddings', {}, '{}')).status).toBe(404);
  });

  it('records each rollout’s calls in its own recorder, also on the shared unix socket', async () => {
    const first = await proxy.openRollout({ rolloutId: 'first' });
    const second = await proxy.openRollout({ rolloutId: 'second' });
    await Promise.all([
      post('chat', first.apiKey, 'a'),
      post('gemini', second.apiKey, 'b', { socketPath: proxy.socketPath! }),
      post('anthropic', first.apiKey, 'c'),
    ]);
    expect(first.calls.map((call) => call.dialect).sort()).toEqual(['anthropic', 'chat']);
    expect(second.calls.map((call) => [call.dialect, call.rolloutId])).toEqual([['gemini', 'second']]);
    expect(statSync(proxy.socketPath!).mode & 0o777).toBe(0o666);
    await Promise.all([first.close(), second.close()]);
  });

  it('a rollout’s own socket serves its key alone and goes away when the rollout closes', async () => {
    const owner = await proxy.openRollout({ socketPath: join(folder, 'owner.sock') });
    const other = await proxy.openRollout();
    expect(owner.socketPath).toBe(join(folder, 'owner.sock'));
    expect((await post('chat', owner.apiKey, 'mine', { socketPath: owner.socketPath! })).status).toBe(200);
    const foreign = await post('chat', other.apiKey, 'not mine', { socketPath: owner.socketPath! });
    expect(foreign.status).toBe(401);
    expect(other.calls).toHaveLength(0);
    await owner.close();
    await expect(post('chat', owner.apiKey, 'gone', { socketPath: join(folder, 'owner.sock') })).rejects.toThrow(/ENOENT|ECONNREFUSED/);
    await other.close();
  });
});

describe('recording', () => {
  it('fills the runner’s TrajectoryRecorder as calls happen: a step, the model-response event, token ids, logprobs and usage', async () => {
    const recorder = new TrajectoryRecorder();
    const rollout = await proxy.openRollout({ trajectory: recorder });
    const seen: number[] = [];
    rollout.onCall((call) => seen.push(call.index));
    await post('responses', rollout.apiKey, 'one');
    await post('anthropic', rollout.apiKey, 'two');
    const trajectory = recorder.snapshot();
    expect(trajectory.turns).toBe(2);
    expect(trajectory.events.map((event) => event.type)).toEqual(['episode-start', 'step-start', 'model-response', 'step-start', 'model-response']);
    expect(trajectory.tokens).toEqual([
      { turn: 1, prompt_token_ids: [1, 2], completion_token_ids: [3], completion_logprobs: [-1] },
      { turn: 2, prompt_token_ids: [1, 2], completion_token_ids: [3], completion_logprobs: [-1] },
    ]);
    expect(trajectory.usage).toEqual({ prompt_tokens: 4, completion_tokens: 2 });
    expect(seen).toEqual([0, 1]);
    expect(rollout.calls[1]).toMatchObject({ dialect: 'anthropic', clientModel: 'c', response: { role: 'assistant', content: 'fine' }, finishReason: 'stop' });
    expect(rollout.calls[1]!.upstreamMs).toBeGreaterThan(0);
    expect(rollout.calls[1]!.durationMs).toBeGreaterThanOrEqual(rollout.calls[1]!.upstreamMs);
    await rollout.close();
  });

  it('refuses an untranslatable body with 400 and one past the body limit with 413, and records the 400', async () => {
    const rollout = await proxy.openRollout();
    const broken = await rawPost('/v1/messages', { 'x-api-key': rollout.apiKey }, '{"model":');
    expect(broken.status).toBe(400);
    const missing = await rawPost('/v1/messages', { 'x-api-key': rollout.apiKey }, JSON.stringify({ model: 'c', max_tokens: 5 }));
    expect(missing.body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: 'messages: Field required' } });
    const huge = await post('chat', rollout.apiKey, 'x'.repeat(100 * 1024));
    expect(huge.status).toBe(413);
    expect(rollout.calls.map((call) => call.error?.code)).toEqual(['PROXY_ERR_BAD_REQUEST']);
    expect(model.requests.some((request) => JSON.stringify(request.body).includes('x'.repeat(1000)))).toBe(false);
    await rollout.close();
  });

  it('a CLI that goes away cancels its upstream request, and the call is recorded as aborted', async () => {
    const rollout = await proxy.openRollout();
    const recorded = new Promise<unknown>((resolve) => rollout.onCall((call) => resolve(call.error)));
    const before = model.requests.length;
    const controller = new AbortController();
    const pending = fetch(`${proxy.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${rollout.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'stall' }] }),
      signal: controller.signal,
    });
    while (model.requests.length === before) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    await expect(pending).rejects.toThrow();
    // Without the cancel, the upstream answer (and so the record) would come only after the ten-minute stall.
    expect(await recorded).toMatchObject({ code: 'ERR_ABORTED' });
    await rollout.close();
  });

  it('answers a call beyond the rollout’s in-flight limit with 429 in its dialect, and serves it again once one finishes', async () => {
    const limited = await startModelProxy({ upstream: { baseURL: model.baseURL, model: 'x' }, listen: { port: 0 }, maxCallsInFlightPerRollout: 1 });
    const rollout = await limited.openRollout();
    const before = model.requests.length;
    const controller = new AbortController();
    const stalled = fetch(`${limited.origin}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': rollout.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'c', max_tokens: 5, messages: [{ role: 'user', content: 'stall' }] }),
      signal: controller.signal,
    });
    while (model.requests.length === before) await new Promise((resolve) => setTimeout(resolve, 10));
    const call = (text: string) =>
      fetch(`${limited.origin}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': rollout.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'c', max_tokens: 5, messages: [{ role: 'user', content: text }] }),
      });
    const refused = await call('one more');
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    const finished = new Promise((resolve) => rollout.onCall(resolve));
    controller.abort();
    await expect(stalled).rejects.toThrow();
    await finished;
    expect((await call('now')).status).toBe(200);
    await limited.close();
  });

  it('a slow streamed call gets its headers first and the answer later; a failure after that comes as the dialect’s in-stream error', async () => {
    const early = await startModelProxy({ upstream: { baseURL: model.baseURL, model: 'x' }, listen: { port: 0 }, streamHeadStartMs: 20 });
    const rollout = await early.openRollout();
    const stream = (path: string, headers: Record<string, string>, body: unknown) =>
      fetch(`${early.origin}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    /** Opens the gate once the held request has reached the model (so it waits on this gate, not the next). */
    const openGate = async (reached: number) => {
      while (model.requests.length < reached) await new Promise((resolve) => setTimeout(resolve, 10));
      gates.open();
    };
    // fetch resolves at the headers: the model is still held at the gate, so they came before any answer existed.
    let reached = model.requests.length + 1;
    const answered = await stream(
      '/v1/messages',
      { 'x-api-key': rollout.apiKey },
      { model: 'c', max_tokens: 5, stream: true, messages: [{ role: 'user', content: 'gate:ok' }] },
    );
    expect(answered.status).toBe(200);
    await openGate(reached);
    const answerText = await answered.text();
    expect(answerText.startsWith(': keep-alive\n\n')).toBe(true);
    expect(answerText).toContain('event: message_stop');
    // Upstream streams the answer word by word, and each word is its own text delta.
    expect(answerText).toContain('"text_delta","text":"slow "');
    expect(answerText).toContain('"text_delta","text":"answer"');

    reached = model.requests.length + 1;
    const failedResponses = await stream('/v1/responses', { authorization: `Bearer ${rollout.apiKey}` }, { model: 'm', stream: true, input: 'gate:fail' });
    expect(failedResponses.status).toBe(200);
    await openGate(reached);
    expect(await failedResponses.text()).toMatch(/event: response\.failed\ndata: .*"code":"rate_limit_exceeded"/);

    reached = model.requests.length + 1;
    const failedAnthropic = await stream(
      '/v1/messages',
      { 'x-api-key': rollout.apiKey },
      { model: 'c', max_tokens: 5, stream: true, messages: [{ role: 'user', content: 'gate:fail' }] },
    );
    await openGate(reached);
    expect(await failedAnthropic.text()).toMatch(/event: error\ndata: \{"type":"error","error":\{"type":"rate_limit_error"/);
    expect(rollout.calls.map((call) => call.error?.code ?? null).slice(0, 3)).toEqual([null, 'MODEL_ERR_RATE_LIMITED', 'MODEL_ERR_RATE_LIMITED']);

    // Gemini's SDK fails on SSE comments: its early stream has the headers and then data lines only.
    reached = model.requests.length + 1;
    const gemini = await stream(
      '/v1beta/models/g:streamGenerateContent?alt=sse',
      { 'x-goog-api-key': rollout.apiKey },
      { contents: [{ role: 'user', parts: [{ text: 'gate:ok' }] }] },
    );
    expect(gemini.status).toBe(200);
    await openGate(reached);
    expect(await gemini.text()).toMatch(/^data: \{"candidates":.*"slow "[^]*"answer"/);

    // A fast failure keeps its real status: the head start had not run out.
    const fast = await stream(
      '/v1/messages',
      { 'x-api-key': rollout.apiKey },
      { model: 'c', max_tokens: 5, stream: true, messages: [{ role: 'user', content: 'status:429' }] },
    );
    expect(fast.status).toBe(429);
    await early.close();
  });

  it('streams Gemini as a JSON array without ?alt=sse and as SSE with it', async () => {
    const rollout = await proxy.openRollout();
    const body = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });
    const array = await rawPost('/v1beta/models/g:streamGenerateContent', { 'x-goog-api-key': rollout.apiKey }, body);
    // One array element per streamed delta; the last carries the finish.
    const chunks = array.body as { candidates: { finishReason?: string; content?: { parts?: { text?: string }[] } }[] }[];
    expect(chunks.at(-1)!.candidates[0]!.finishReason).toBe('STOP');
    expect(
      chunks
        .flatMap((chunk) => chunk.candidates[0]!.content?.parts ?? [])
        .map((part) => part.text ?? '')
        .join(''),
    ).toBe('fine');
    const sse = await rawPost('/v1beta/models/g:streamGenerateContent?alt=sse', { 'x-goog-api-key': rollout.apiKey }, body);
    expect(sse.text).toMatch(/^data: \{"candidates":/);
    expect(rollout.calls.map((call) => call.stream)).toEqual([true, true]);
    await rollout.close();
  });

  it('refuses forced args the proxy owns', async () => {
    await expect(startModelProxy({ upstream: { baseURL: model.baseURL, model: 'x' }, forcedArgs: { stream: true }, listen: { port: 0 } })).rejects.toSatisfy(
      (error: unknown) => CorralError.hasCode(error, 'CFG_ERR_INVALID'),
    );
  });
});
