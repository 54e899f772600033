/**
 * The episode API over real HTTP with a custom environment loaded as `corral serve --env <path>` loads it (tally:
 * custom tools, env args, per-episode state, a setup hook writing into the sandbox, a rubric reading it back, a
 * cleanup hook): create runs setup, plain tool calls and the episode's MCP endpoint share one sandbox and state,
 * score runs the rubric there, delete runs cleanup and frees the sandbox; typed errors with stable codes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatCompletionRequestBody, type ModelReply, startScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { WebSocketClientTransport } from '../helpers/websocket-client-transport.js';
import { EPISODE_TOKEN, type EpisodeServer, startEpisodeServer } from './episodes-server.js';
import { readNdjson, waitFor } from './runner-rollout-server.js';

const processBackend = await backendAvailable('process');
const IMPORT_MARKER_ENV = resolve(import.meta.dirname, '../fixtures/episodes/import-marker-env.ts');
const IMPORT_MARKER = resolve(import.meta.dirname, '../fixtures/episodes/.imported');

const cleanedUp = (server: EpisodeServer) => (existsSync(server.cleanupLog) ? readFileSync(server.cleanupLog, 'utf8').split('\n').filter(Boolean) : []);

describe.runIf(processBackend)('POST /v1/episodes', () => {
  let server: EpisodeServer;
  beforeAll(async () => {
    server = await startEpisodeServer();
  });
  afterAll(async () => server?.close());

  it('creates an episode after its setup hook ran, with the prompt, OpenAI tool specs and an MCP URL', async () => {
    const created = await server.call('POST', '/v1/episodes', { env: 'tally', example_id: 'tally-1' });
    expect(created.status).toBe(201);
    const episode = created.body;
    expect(episode.id).toMatch(/^epi_/);
    expect(episode).toMatchObject({ env: 'tally', example_id: 'tally-1', mcpUrl: `${server.baseUrl}/v1/episodes/${episode.id}/mcp` });
    expect(episode.prompt).toEqual([
      { role: 'system', content: expect.stringContaining('Use peek') },
      { role: 'user', content: 'What is the secret word?' },
    ]);
    const names = episode.tools.map((tool: { function: { name: string } }) => tool.function.name);
    expect(names).toEqual(expect.arrayContaining(['read_file', 'write_file', 'tally', 'peek']));
    const tallySpec = episode.tools.find((tool: { function: { name: string } }) => tool.function.name === 'tally');
    expect(tallySpec).toMatchObject({ type: 'function', function: { parameters: { type: 'object', properties: { n: { type: 'integer' } } } } });
    expect(Date.parse(episode.expiresAt)).toBeGreaterThan(Date.now());
    // Setup wrote the secret before create answered: the first tool call sees it.
    const peeked = await server.call('POST', `/v1/episodes/${episode.id}/tools/peek`, {});
    expect(peeked).toMatchObject({ status: 200, body: { text: 'jade', isError: false, structuredContent: { secret: 'jade', peeks: 1 } } });
    expect((await server.call('DELETE', `/v1/episodes/${episode.id}`)).status).toBe(204);
  });

  it('plain tool calls and the MCP endpoint share the sandbox and state; score runs the rubric there; delete runs cleanup', async () => {
    const { body: episode } = await server.call('POST', '/v1/episodes', { env: 'tally', example_id: 'tally-0', env_args: { start: 40 } });
    expect(await server.call('POST', `/v1/episodes/${episode.id}/tools/tally`, { n: 2 })).toMatchObject({ status: 200, body: { text: '42' } });
    await server.call('POST', `/v1/episodes/${episode.id}/tools/peek`, {});
    // A tool failure is a result the model reads, not an HTTP error; bad arguments too.
    const missing = await server.call('POST', `/v1/episodes/${episode.id}/tools/read_file`, { path: 'nope.txt' });
    expect(missing).toMatchObject({ status: 200, body: { isError: true } });
    const badArguments = await server.call('POST', `/v1/episodes/${episode.id}/tools/tally`, { n: 'two' });
    expect(badArguments).toMatchObject({ status: 200, body: { isError: true, text: expect.stringContaining('invalid arguments') } });

    const client = new Client({ name: 'episodes-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(episode.mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${EPISODE_TOKEN}`, 'x-test-principal': 'alice' } },
      }),
    );
    const listed = await client.listTools();
    expect(listed.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['peek', 'tally', 'read_file']));
    const overMcp = await client.callTool({ name: 'peek', arguments: {} });
    expect(overMcp.structuredContent).toEqual({ secret: 'opal', peeks: 2 });
    await client.callTool({ name: 'write_file', arguments: { path: 'notes.txt', content: 'from mcp' } });
    await client.close();
    expect(await server.call('POST', `/v1/episodes/${episode.id}/tools/read_file`, { path: 'notes.txt' })).toMatchObject({
      body: { isError: false, text: expect.stringContaining('from mcp') },
    });

    const scored = await server.call('POST', `/v1/episodes/${episode.id}/score`, { completion: [{ role: 'assistant', content: '  opal' }] });
    expect(scored).toEqual({ status: 200, body: { reward: 1, metrics: { correct: 1, secret_in_sandbox: 1, peeks: 2 }, answer: '  opal' } });
    const again = await server.call('POST', `/v1/episodes/${episode.id}/score`, { completion: 'opal' });
    expect(again).toMatchObject({ status: 409, body: { error: { code: 'EPISODE_ERR_ALREADY_SCORED' } } });

    expect(server.leased()).toBeGreaterThan(0);
    expect((await server.call('DELETE', `/v1/episodes/${episode.id}`)).status).toBe(204);
    expect(cleanedUp(server)).toContain('tally-0');
    expect(server.leased()).toBe(0);
    expect(await server.call('GET', `/v1/episodes/${episode.id}`)).toMatchObject({ status: 404, body: { error: { code: 'EPISODE_ERR_NOT_FOUND' } } });
    expect(await server.call('DELETE', `/v1/episodes/${episode.id}`)).toMatchObject({ status: 404, body: { error: { code: 'EPISODE_ERR_NOT_FOUND' } } });
  });

  it('scores a wrong completion 0, and an inline example works without the dataset', async () => {
    const example = { id: 'inline-1', prompt: 'What is the secret word?', answer: 'topaz' };
    const { status, body: episode } = await server.call('POST', '/v1/episodes', { env: 'tally', example });
    expect(status).toBe(201);
    expect(await server.call('POST', `/v1/episodes/${episode.id}/tools/peek`, {})).toMatchObject({ body: { text: 'topaz' } });
    const scored = await server.call('POST', `/v1/episodes/${episode.id}/score`, { completion: 'ruby' });
    expect(scored.body).toEqual({ reward: 0, metrics: { correct: 0, secret_in_sandbox: 1, peeks: 1 }, answer: 'ruby' });
    await server.call('DELETE', `/v1/episodes/${episode.id}`);
  });

  it('keeps each episode to its principal', async () => {
    const { body: episode } = await server.call('POST', '/v1/episodes', { env: 'tally', example_id: 'tally-0' }, 'alice');
    for (const [method, path, body] of [
      ['GET', `/v1/episodes/${episode.id}`],
      ['POST', `/v1/episodes/${episode.id}/tools/peek`, {}],
      ['POST', `/v1/episodes/${episode.id}/score`, { completion: 'opal' }],
      ['DELETE', `/v1/episodes/${episode.id}`],
    ] as const) {
      expect(await server.call(method, path, body, 'mallory')).toMatchObject({ status: 404, body: { error: { code: 'EPISODE_ERR_NOT_FOUND' } } });
    }
    expect((await server.call('GET', `/v1/episodes/${episode.id}`, undefined, 'alice')).status).toBe(200);
    await server.call('DELETE', `/v1/episodes/${episode.id}`);
  });

  it('refuses bad requests with typed errors, and never imports a path a client names', async () => {
    const refusals: [unknown, number, string][] = [
      [{ env: 'tally' }, 400, 'INVALID_REQUEST'],
      [{ env: 'tally', example_id: 'tally-0', example: { id: 'x', prompt: 'p' } }, 400, 'INVALID_REQUEST'],
      [{ env: 'tally', example_id: 'tally-0', shell: true }, 400, 'INVALID_REQUEST'],
      [{ env: 'tally', example_id: 'tally-9' }, 400, 'CFG_ERR_INVALID'],
      [{ env: 'tally', example_id: 'tally-0', env_args: { start: 'many' } }, 400, 'ENV_ERR_INVALID_ARGS'],
      [{ env: 'nope', example_id: 'x' }, 400, 'ENV_ERR_NOT_SERVED'],
      [{ env: IMPORT_MARKER_ENV, example_id: 'x' }, 400, 'ENV_ERR_NOT_SERVED'],
      [{ env: '../fixtures/episodes/import-marker-env.ts', example_id: 'x' }, 400, 'ENV_ERR_NOT_SERVED'],
    ];
    for (const [body, status, code] of refusals) {
      const answer = await server.call('POST', '/v1/episodes', body);
      expect({ body, status: answer.status, code: answer.body.error.code }).toEqual({ body, status, code });
    }
    expect(existsSync(IMPORT_MARKER)).toBe(false);
    const invalidArgs = await server.call('POST', '/v1/episodes', { env: 'tally', example_id: 'tally-0', env_args: { start: 'many' } });
    expect(invalidArgs.body.error).toMatchObject({ field: 'env_args', issues: [{ path: ['start'] }] });
    const notServed = await server.call('POST', '/v1/episodes', { env: 'nope', example_id: 'x' });
    expect(notServed.body.error.available).toEqual(expect.arrayContaining(['tally', 'python-code', 'wiki-search']));

    const { body: episode } = await server.call('POST', '/v1/episodes', { env: 'tally', example_id: 'tally-0' });
    expect(await server.call('POST', `/v1/episodes/${episode.id}/tools/rm_rf`, {})).toMatchObject({
      status: 404,
      body: { error: { code: 'EPISODE_ERR_UNKNOWN_TOOL', available: expect.arrayContaining(['peek']) } },
    });
    expect(await server.call('POST', `/v1/episodes/${episode.id}/tools/peek`, [1, 2])).toMatchObject({ status: 400 });
    expect(await server.call('POST', `/v1/episodes/${episode.id}/score`, { answer: 'opal' })).toMatchObject({
      status: 400,
      body: { error: { code: 'INVALID_REQUEST' } },
    });
    await server.call('DELETE', `/v1/episodes/${episode.id}`);
    expect(server.leased()).toBe(0);
  });

  it('a failing setup hook answers ENV_ERR_SETUP_FAILED, runs cleanup and leaves no episode or sandbox', async () => {
    const before = cleanedUp(server).length;
    const failing = await server.call('POST', '/v1/episodes', { env: 'tally', example: { id: 'doomed', prompt: 'p', answer: 'x', info: { failSetup: true } } });
    expect(failing).toMatchObject({ status: 500, body: { error: { code: 'ENV_ERR_SETUP_FAILED', message: expect.stringContaining('asked setup to fail') } } });
    expect(cleanedUp(server).slice(before)).toEqual(['doomed']);
    expect(server.leased()).toBe(0);
    expect(server.app.corral.quotas.countOf('maxEpisodesPerPrincipal', 'alice')).toBe(0);
  });

  it('POST /v1/rollouts runs the served environment with its own tools, setup and cleanup', async () => {
    // Peek first, then answer with what the tool returned.
    const script = (body: ChatCompletionRequestBody): ModelReply => {
      const toolResult = body.messages.find((message) => message.role === 'tool');
      return toolResult ? { kind: 'text', content: String(toolResult.content) } : { kind: 'tool-calls', toolCalls: [{ name: 'peek', arguments: {} }] };
    };
    const model = await startScriptedModelServer(script);
    try {
      const response = await fetch(`${server.baseUrl}/v1/rollouts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${EPISODE_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ env: 'tally', n: 2, rollouts_per_example: 2, model: { base_url: model.baseURL, model: 'scripted' } }),
      });
      expect(response.status).toBe(200);
      const lines = (await readNdjson(response)).map((line) => line.value);
      const records = lines.filter((line) => line.type !== 'summary');
      expect(records.map((record) => [record.example_id, record.reward, record.error])).toEqual(
        expect.arrayContaining([
          ['tally-0', 1, null],
          ['tally-0', 1, null],
          ['tally-1', 1, null],
          ['tally-1', 1, null],
        ]),
      );
      expect(records.every((record) => (record.metrics as Record<string, number>).peeks === 1)).toBe(true);
      expect(lines.at(-1)).toMatchObject({ type: 'summary', status: 'complete', env_id: 'tally', rollouts: 4, errored: 0, avg_reward: 1 });
      expect(server.leased()).toBe(0);
    } finally {
      await model.close();
    }
  });

  it('serves the environment at /mcp/<env> and /ws/<env> too, its custom tools included', async () => {
    const client = new Client({ name: 'episodes-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp/tally`), { requestInit: { headers: { authorization: `Bearer ${EPISODE_TOKEN}` } } }),
    );
    expect((await client.callTool({ name: 'tally', arguments: { n: 5 } })).structuredContent).toEqual({ sum: 5 });
    await client.close();
    // And over WebSocket, where the connection's sandbox and state are its own: peek finds no secret without setup.
    const socketClient = new Client({ name: 'episodes-test', version: '1.0.0' });
    await socketClient.connect(new WebSocketClientTransport(`${server.baseUrl.replace('http', 'ws')}/ws/tally`, { authorization: `Bearer ${EPISODE_TOKEN}` }));
    expect((await socketClient.callTool({ name: 'tally', arguments: { n: 7 } })).structuredContent).toEqual({ sum: 7 });
    const peeked = await socketClient.callTool({ name: 'peek', arguments: {} });
    expect(peeked).toMatchObject({ isError: true, content: [{ type: 'text', text: 'no secret in this sandbox' }] });
    await socketClient.close();
    await waitFor(
      () => server.leased() === 0,
      10_000,
      () => `${server.leased()} sandboxes still leased after the socket closed`,
    );
  });

  it('keeps one state per sandbox handle at /mcp/<env>/<handle>, shared by every request on it and by no other handle', async () => {
    const handles: { id: string; mcpUrl: string }[] = [];
    for (let index = 0; index < 2; index++) {
      const created = await server.call('POST', '/v1/sandboxes', { env: 'tally', files: [{ path: 'secret.txt', content: `word-${index}\n` }] });
      expect(created.status).toBe(201);
      handles.push(created.body);
    }
    const peekOn = async (mcpUrl: string) => {
      // A new client (and MCP session) per call: the state must come from the handle, not the session.
      const client = new Client({ name: 'episodes-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(mcpUrl), {
          requestInit: { headers: { authorization: `Bearer ${EPISODE_TOKEN}`, 'x-test-principal': 'alice' } },
        }),
      );
      const result = await client.callTool({ name: 'peek', arguments: {} });
      await client.close();
      return result.structuredContent;
    };
    expect(await peekOn(handles[0]!.mcpUrl)).toEqual({ secret: 'word-0', peeks: 1 });
    expect(await peekOn(handles[0]!.mcpUrl)).toEqual({ secret: 'word-0', peeks: 2 });
    expect(await peekOn(handles[1]!.mcpUrl)).toEqual({ secret: 'word-1', peeks: 1 });
    for (const handle of handles) expect((await server.call('DELETE', `/v1/sandboxes/${handle.id}`)).status).toBe(204);
  });
});

describe.runIf(processBackend)('episode expiry', () => {
  let server: EpisodeServer;
  beforeAll(async () => {
    server = await startEpisodeServer({ episodeIdleTtlMs: 3_000 });
  });
  afterAll(async () => server?.close());

  it('expires an idle episode: cleanup runs, the sandbox is released, and later calls answer 410 EPISODE_ERR_EXPIRED', async () => {
    const { body: episode } = await server.call('POST', '/v1/episodes', { env: 'tally', example_id: 'tally-1' });
    await server.call('POST', `/v1/episodes/${episode.id}/tools/peek`, {});
    expect(server.leased()).toBe(1);
    await waitFor(
      () => cleanedUp(server).includes('tally-1'),
      20_000,
      () => 'the idle episode was never cleaned up',
    );
    expect(server.leased()).toBe(0);
    expect(await server.call('POST', `/v1/episodes/${episode.id}/tools/peek`, {})).toMatchObject({
      status: 410,
      body: { error: { code: 'EPISODE_ERR_EXPIRED' } },
    });
    expect(await server.call('GET', `/v1/episodes/${episode.id}`, undefined, 'mallory')).toMatchObject({ status: 404 });
  });
});
