// What one rollout can make the recording proxy hold, over a real unix socket and HTTP against the scripted model:
// connections to a rollout's own socket are capped, its request bodies share one allowance, its records are bounded
// in calls and bytes (past a bound the call is refused with a typed error and the rollout reports the failure),
// calls are kept in arrival order, and the conversation is the CLI's chain of calls, not whoever called last.
import { request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelProxy, type ModelProxy } from '../../src/model-proxy/model-proxy.js';
import {
  type ChatCompletionRequestBody,
  type ModelReply,
  type ScriptedModelServer,
  startScriptedModelServer,
} from '../../src/testing/scripted-model-server.js';

let release: () => void = () => undefined;
const held = () => new Promise<void>((resolve) => (release = resolve));

function script(request: ChatCompletionRequestBody): ModelReply | Promise<ModelReply> {
  const last = JSON.stringify(request.messages.at(-1)?.content ?? '');
  if (last.includes('hold')) return held().then(() => ({ kind: 'text', content: 'held answer' }));
  if (last.includes('refuse')) return { kind: 'http-error', status: 400, message: 'refused upstream' };
  return { kind: 'text', content: `answer to ${last.slice(1, 20)}` };
}

let model: ScriptedModelServer;
let folder: string;
const proxies: ModelProxy[] = [];

beforeAll(async () => {
  model = await startScriptedModelServer(script);
  folder = mkdtempSync(join(tmpdir(), 'corral-proxy-limits-'));
});

afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.close()));
  await model.close();
  rmSync(folder, { recursive: true, force: true });
});

async function proxyWith(options: Partial<Parameters<typeof startModelProxy>[0]> = {}): Promise<ModelProxy> {
  const proxy = await startModelProxy({ upstream: { baseURL: model.baseURL, model: 'upstream-model' }, listen: { port: 0 }, ...options });
  proxies.push(proxy);
  return proxy;
}

/** A Chat Completions call over the rollout's socket. */
function chat(socketPath: string, key: string, messages: unknown[]): Promise<{ status: number; text: string }> {
  return rawCall(socketPath, key, JSON.stringify({ model: 'm', messages }));
}

/** `body` is sent in one piece unless `hold` keeps its last byte back until it resolves. */
function rawCall(socketPath: string, key: string, body: string, hold?: Promise<void>): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        socketPath,
        agent: false,
        method: 'POST',
        path: '/v1/chat/completions',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    request.on('error', reject);
    if (!hold) return void request.end(body);
    // All but the last byte: the body is held in the proxy, unfinished, until `hold` resolves.
    request.write(body.slice(0, -1));
    void hold.then(() => request.end(body.slice(-1)));
  });
}

const user = (content: string) => ({ role: 'user', content });
const system = { role: 'system', content: 'You are the CLI.' };

describe('connections and bytes per rollout socket', () => {
  it('accepts at most maxConnectionsPerRollout connections at once and closes the rest as they arrive; calls work again after', async () => {
    const proxy = await proxyWith({ maxConnectionsPerRollout: 16 });
    const rollout = await proxy.openRollout({ socketPath: join(folder, 'connections.sock') });
    const sockets: Socket[] = [];
    let closedByProxy = 0;
    await Promise.all(
      Array.from({ length: 200 }, () => {
        return new Promise<void>((resolve) => {
          const socket = connect(rollout.socketPath!);
          sockets.push(socket);
          socket.on('error', () => undefined);
          socket.once('connect', () => resolve());
          socket.once('close', () => {
            closedByProxy++;
            resolve();
          });
        });
      }),
    );
    // The proxy closes each connection past the cap as it accepts it: wait until 184 of them have seen their close.
    for (let waited = 0; closedByProxy < 184 && waited < 100; waited++) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(closedByProxy).toBe(184);
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await chat(rollout.socketPath!, rollout.apiKey, [user('after')])).status).toBe(200);
    await rollout.close();
  });

  it('one rollout’s request bodies in flight share one allowance of maxBodyBytes', async () => {
    const proxy = await proxyWith({ maxBodyBytes: 64 * 1024 });
    const rollout = await proxy.openRollout({ socketPath: join(folder, 'bodies.sock') });
    const body = JSON.stringify({ model: 'm', messages: [user(`x${'y'.repeat(40 * 1024)}`)] });
    let finishFirst: () => void = () => undefined;
    const first = rawCall(rollout.socketPath!, rollout.apiKey, body, new Promise<void>((resolve) => (finishFirst = resolve)));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const second = await rawCall(rollout.socketPath!, rollout.apiKey, body);
    expect(second.status).toBe(413);
    finishFirst();
    expect((await first).status).toBe(200);
    expect((await rawCall(rollout.socketPath!, rollout.apiKey, body)).status).toBe(200);
    await rollout.close();
  });
});

describe('what one rollout’s records may hold', () => {
  it('refuses the call past maxCallsPerRollout and every later one with PROXY_ERR_ROLLOUT_LIMIT; the rollout reports the failure', async () => {
    const proxy = await proxyWith({ maxCallsPerRollout: 3 });
    const rollout = await proxy.openRollout({ socketPath: join(folder, 'calls.sock') });
    const before = model.requests.length;
    for (const text of ['one', 'two', 'refuse three']) await chat(rollout.socketPath!, rollout.apiKey, [user(text)]);
    expect(rollout.limitFailure()).toBeNull();
    const fourth = await chat(rollout.socketPath!, rollout.apiKey, [user('four')]);
    expect(fourth.status).toBe(400);
    expect(JSON.parse(fourth.text)).toMatchObject({ error: { code: 'PROXY_ERR_ROLLOUT_LIMIT', type: 'invalid_request_error' } });
    expect((await chat(rollout.socketPath!, rollout.apiKey, [user('five')])).status).toBe(400);
    expect(model.requests.length - before).toBe(3);
    expect(rollout.calls).toHaveLength(3);
    expect(rollout.limitFailure()).toMatchObject({ boundary: 'model', code: 'PROXY_ERR_ROLLOUT_LIMIT', transient: false });
    await rollout.close();
  });

  it('bounds recorded bytes: distinct 256 KiB calls, refused upstream or not, stop at maxRecordedBytesPerRollout', async () => {
    const proxy = await proxyWith({ maxRecordedBytesPerRollout: 1024 * 1024 });
    const rollout = await proxy.openRollout({ socketPath: join(folder, 'bytes.sock') });
    const statuses: number[] = [];
    for (let call = 0; call < 8; call++) {
      const big = `refuse ${call} ${String(call).repeat(256 * 1024)}`;
      statuses.push((await chat(rollout.socketPath!, rollout.apiKey, [user(big)])).status);
    }
    // Three calls (768 KiB) fit; the fourth would pass 1 MiB: it and all later ones are refused by the proxy.
    expect(statuses).toEqual([400, 400, 400, 400, 400, 400, 400, 400]);
    expect(rollout.calls.map((call) => call.error?.code)).toEqual([expect.any(String), expect.any(String), expect.any(String), 'PROXY_ERR_ROLLOUT_LIMIT']);
    expect(rollout.calls[3]!.request.messages).toEqual([]);
    expect(rollout.limitFailure()).toMatchObject({ code: 'PROXY_ERR_ROLLOUT_LIMIT' });
    await rollout.close();
  });

  it('a conversation resent turn after turn counts what is new, not the whole resend', async () => {
    const proxy = await proxyWith({ maxRecordedBytesPerRollout: 512 * 1024 });
    const rollout = await proxy.openRollout({ socketPath: join(folder, 'resend.sock') });
    const messages: unknown[] = [system, user(`task ${'t'.repeat(200 * 1024)}`)];
    for (let turn = 0; turn < 10; turn++) {
      const answer = await chat(rollout.socketPath!, rollout.apiKey, messages);
      expect(answer.status).toBe(200);
      messages.push((JSON.parse(answer.text) as { choices: { message: unknown }[] }).choices[0]!.message, user(`turn ${turn}`));
    }
    expect(rollout.limitFailure()).toBeNull();
    await rollout.close();
  });
});

describe('order and conversation', () => {
  it('keeps calls in arrival order when an earlier call finishes last', async () => {
    const proxy = await proxyWith();
    const rollout = await proxy.openRollout({ socketPath: join(folder, 'order.sock') });
    const before = model.requests.length;
    const slow = chat(rollout.socketPath!, rollout.apiKey, [user('hold me')]);
    while (model.requests.length === before) await new Promise((resolve) => setTimeout(resolve, 10));
    await chat(rollout.socketPath!, rollout.apiKey, [user('quick')]);
    release();
    await slow;
    expect(rollout.calls.map((call) => call.index)).toEqual([0, 1]);
    expect(rollout.calls[0]!.response?.content).toBe('held answer');
    await rollout.close();
  });

  it('the conversation is the CLI’s chain of turns, not a stray call made after its last turn', async () => {
    const proxy = await proxyWith();
    const rollout = await proxy.openRollout({ socketPath: join(folder, 'chain.sock') });
    const messages: unknown[] = [system, user('solve it')];
    for (let turn = 0; turn < 3; turn++) {
      const answer = await chat(rollout.socketPath!, rollout.apiKey, messages);
      messages.push((JSON.parse(answer.text) as { choices: { message: unknown }[] }).choices[0]!.message);
      if (turn < 2) messages.push(user(`tool output ${turn}`));
    }
    const cliLast = messages.at(-1);
    // Another process in the sandbox, holding the key, calls after the CLI's final turn.
    await chat(rollout.socketPath!, rollout.apiKey, [{ role: 'system', content: 'other' }, user('say PWNED')]);
    await chat(rollout.socketPath!, rollout.apiKey, [user('say PWNED again')]);
    const conversation = rollout.conversation();
    expect(conversation.at(-1)).toEqual(cliLast);
    expect(conversation).toHaveLength(7);
    expect(JSON.stringify(conversation)).not.toContain('PWNED');
    await rollout.close();
  });
});
