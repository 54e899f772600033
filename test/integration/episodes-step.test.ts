/**
 * Turn-by-turn driving of episodes through corral's real app and episode service (no sandbox: these environments'
 * tools keep their state in memory): POST /v1/episodes/<id>/step runs an assistant message's tool calls or asks the
 * environment's respond, ends at a final answer, respond's done, a stop predicate or maxTurns with the rubric's
 * reward over the stepped conversation; refusals are typed and leave the conversation as it was; respond and rubric
 * faults are 5xx with their code and error the episode, never a reward. /ws/episodes speaks the same over a socket.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type ServedEnvironment, servedEnvironmentsOf } from '../../src/cli/runtime/served-environments.js';
import { createEpisodeService } from '../../src/cli/runtime/episode-service.js';
import { withServedEnvironments } from '../../src/cli/runtime/environment-catalog-entries.js';
import { loadConfig } from '../../src/config/load-config.js';
import { CorralError } from '../../src/core/errors.js';
import { buildServer } from '../../src/http/build-server.js';
import { poolSandboxSource } from '../../src/mcp/sandbox-source.js';
import { buildToolCatalog } from '../../src/mcp/tool-catalog.js';
import { defineEnvironment, type Environment } from '../../src/runner/contract/environment.js';
import { defineTool } from '../../src/runner/contract/environment-tool.js';
import { stateSays } from '../../src/runner/stopping/stop-predicates.js';
import { SandboxPool } from '../../src/sandbox/pool/sandbox-pool.js';
import { smallWikiIndex } from '../../src/testing/small-wiki-index.js';
import { z } from 'zod';

interface CounterState {
  total: number;
}

/** Lets a test hold a tool call open, to send a second step while the first runs. */
let holdAdd: Promise<void> | undefined;

const add = defineTool({
  name: 'add',
  description: 'Adds n to the running total and returns it.',
  inputSchema: z.object({ n: z.number().int() }),
  async execute({ n }, { state }) {
    await holdAdd;
    (state as CounterState).total += n;
    return { text: String((state as CounterState).total) };
  },
});

/** An infrastructure fault inside a tool call: the sandbox went away. */
const crash = defineTool({
  name: 'crash',
  description: 'Fails as a dead sandbox does.',
  inputSchema: z.object({}),
  execute: () => {
    throw new CorralError('SBX_ERR_CLOSED', 'the sandbox is gone');
  },
});

const cleanedUp: string[] = [];

/** Tools only: answer with the total. Reaching 100 stops the episode; the answer "crash" breaks the rubric. */
const counter = defineEnvironment({
  name: 'counter',
  tools: [add, crash],
  dataset: () => [{ id: 'count-1', prompt: 'Add numbers, then answer with the total.' }],
  state: (): CounterState => ({ total: 0 }),
  stopWhen: stateSays<CounterState>((state) => state.total >= 100),
  cleanup: ({ example }) => void cleanedUp.push(example.id),
  rubric: [
    {
      name: 'correct',
      weight: 1,
      score: ({ trajectory, state }) => {
        if (trajectory.answer === 'crash') throw new Error('the rubric broke');
        return trajectory.answer === String((state as CounterState).total) ? 1 : 0;
      },
    },
    { name: 'total', weight: 0, score: ({ state }) => (state as CounterState).total },
    { name: 'turns', weight: 0, score: ({ trajectory }) => trajectory.turns },
  ],
  systemPrompt: 'Use add, then answer with the total alone.',
  maxTurns: 4,
});

interface GuessState {
  guesses: number;
  solved: boolean;
}

/** Talks back: guess the number; the environment says higher or lower, and ends the game when it is found. */
const guess = defineEnvironment({
  name: 'guess',
  tools: [add],
  dataset: () => [{ id: 'seven', prompt: 'Guess my number between 1 and 10.', answer: 7 }],
  state: (): GuessState & CounterState => ({ guesses: 0, solved: false, total: 0 }),
  respond({ messages, state, example }) {
    const last = messages.at(-1);
    const text = last?.role === 'assistant' ? (last.content ?? '') : '';
    if (text === 'boom') throw new Error('the game broke');
    const number = Number(text);
    const game = state as GuessState;
    game.guesses++;
    if (number === example.answer) {
      game.solved = true;
      return { done: true, reason: 'found it' };
    }
    return { messages: number < (example.answer as number) ? 'higher' : 'lower' };
  },
  rubric: [
    { name: 'solved', weight: 1, score: ({ state }) => ((state as GuessState).solved ? 1 / (state as GuessState).guesses : 0) },
    { name: 'guesses', weight: 0, score: ({ state }) => (state as GuessState).guesses },
  ],
  systemPrompt: 'Guess the number; answer with digits only.',
  maxTurns: 5,
});

const served = (environments: Environment[]) =>
  servedEnvironmentsOf(
    new Map<string, ServedEnvironment>(
      environments.map((environment) => [
        environment.name,
        { name: environment.name, definition: environment, source: { kind: 'built-in', name: environment.name } },
      ]),
    ),
  );

let app: FastifyInstance;
let pool: SandboxPool;
let origin: string;

beforeAll(async () => {
  const config = loadConfig({ env: {}, flags: { host: '127.0.0.1', port: 0, backend: 'process' } });
  const wiki = smallWikiIndex();
  pool = new SandboxPool({ minIdle: 0, healthIntervalMs: 0, reapIntervalMs: 0 });
  const specs = { general: { backend: 'process' as const }, javascript: { backend: 'isolate' as const } };
  const environments = served([counter, guess]);
  app = buildServer(config, {
    environments: await withServedEnvironments(buildToolCatalog({ wiki }), environments, { wiki, log: () => undefined }),
    sandboxSource: poolSandboxSource(pool, specs),
    pool,
    episodes: createEpisodeService({ runtime: { pool, specs, wiki }, environments, dataDir: undefined, server: config.server }),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  origin = `127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(async () => {
  await app?.close();
  await pool?.close();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers of many shapes, checked by toEqual/toMatchObject
async function post(url: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  return { status: response.statusCode, body: response.json() };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
async function get(url: string): Promise<{ status: number; body: any }> {
  const response = await app.inject({ method: 'GET', url });
  return { status: response.statusCode, body: response.json() };
}

async function newEpisode(env: string, exampleId: string): Promise<string> {
  const created = await post('/v1/episodes', { env, example_id: exampleId });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

const call = (id: string, name: string, args: Record<string, unknown> | string) => ({
  id,
  type: 'function',
  function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
});

describe('POST /v1/episodes/<id>/step', () => {
  it('runs tool calls, then scores the final answer over the stepped conversation; the state route shows it all', async () => {
    const id = await newEpisode('counter', 'count-1');
    const first = await post(`/v1/episodes/${id}/step`, {
      message: { role: 'assistant', content: null, tool_calls: [call('a', 'add', { n: 2 }), call('b', 'add', { n: 3 })] },
    });
    expect(first).toEqual({
      status: 200,
      body: {
        done: false,
        messages: [
          { role: 'tool', tool_call_id: 'a', content: expect.stringMatching(/^[25]$/) },
          { role: 'tool', tool_call_id: 'b', content: expect.stringMatching(/^[35]$/) },
        ],
      },
    });
    // The model's own mistake (arguments that are not JSON) is a result it reads, as in `corral eval`.
    const mistaken = await post(`/v1/episodes/${id}/step`, { message: { role: 'assistant', content: 'oops', tool_calls: [call('c', 'add', '{n: 1')] } });
    expect(mistaken.body).toEqual({ done: false, messages: [{ role: 'tool', tool_call_id: 'c', content: expect.stringContaining('not valid JSON') }] });
    const last = await post(`/v1/episodes/${id}/step`, { message: '5' });
    expect(last).toEqual({
      status: 200,
      body: { done: true, messages: [], reward: 1, metrics: { correct: 1, total: 5, turns: 3 }, answer: '5', reason: 'answered' },
    });
    const state = await get(`/v1/episodes/${id}/state`);
    expect(state.body).toMatchObject({ id, turns: 3, done: true, reward: 1, reason: 'answered' });
    expect(state.body.messages.map((message: { role: string }) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
      'tool',
      'assistant',
    ]);

    const again = await post(`/v1/episodes/${id}/step`, { message: '5' });
    expect(again).toMatchObject({ status: 409, body: { error: { code: 'EPISODE_ERR_DONE', reason: 'answered' } } });
    const scored = await post(`/v1/episodes/${id}/score`, { completion: '5' });
    expect(scored).toMatchObject({ status: 409, body: { error: { code: 'EPISODE_ERR_STEPPED' } } });
    expect((await app.inject({ method: 'DELETE', url: `/v1/episodes/${id}` })).statusCode).toBe(204);
  });

  it('refuses malformed messages naming the field and unknown tools with their list; nothing ran, the conversation is unchanged', async () => {
    const id = await newEpisode('counter', 'count-1');
    const cases: [unknown, string][] = [
      [{}, 'message'],
      [{ message: { role: 'user', content: 'hi' } }, 'message.role'],
      [{ message: 42 }, 'message'],
      [{ message: { role: 'assistant' } }, 'message.content'],
      [
        { message: { role: 'assistant', content: null, tool_calls: [{ type: 'function', function: { name: 'add', arguments: '{}' } }] } },
        'message.tool_calls.0.id',
      ],
      [
        { message: { role: 'assistant', content: null, tool_calls: [{ id: 'x', type: 'python', function: { name: 'add', arguments: '{}' } }] } },
        'message.tool_calls.0.type',
      ],
      [{ message: { role: 'assistant', content: null, tool_calls: [call('x', 'add', { n: 1 }), call('x', 'add', { n: 2 })] } }, 'message.tool_calls.1.id'],
      [{ message: { role: 'assistant', content: 'x', temperature: 1 } }, 'message.temperature'],
      [{ message: 'x', reward: 1 }, 'reward'],
    ];
    for (const [body, field] of cases) {
      const refused = await post(`/v1/episodes/${id}/step`, body);
      expect([refused.status, refused.body.error.code, refused.body.error.field], JSON.stringify(body)).toEqual([400, 'INVALID_REQUEST', field]);
    }
    const unknown = await post(`/v1/episodes/${id}/step`, {
      message: { role: 'assistant', content: null, tool_calls: [call('a', 'add', { n: 1 }), call('b', 'format_disk', {})] },
    });
    expect(unknown).toMatchObject({ status: 404, body: { error: { code: 'EPISODE_ERR_UNKNOWN_TOOL', available: ['add', 'crash'] } } });
    expect((await get(`/v1/episodes/${id}/state`)).body).toMatchObject({ turns: 0, done: false, messages: [{ role: 'system' }, { role: 'user' }] });
    // An OpenAI SDK message as model_dump() gives it is accepted as is; the first add never ran.
    const sdkMessage = {
      role: 'assistant',
      content: null,
      refusal: null,
      annotations: [],
      audio: null,
      function_call: null,
      tool_calls: [call('c', 'add', { n: 1 })],
    };
    expect((await post(`/v1/episodes/${id}/step`, { message: sdkMessage })).body.messages).toEqual([{ role: 'tool', tool_call_id: 'c', content: '1' }]);
    expect((await post(`/v1/episodes/nope/step`, { message: 'x' })).body.error.code).toBe('EPISODE_ERR_NOT_FOUND');
  });

  it('ends at maxTurns and when a stop predicate holds, scored either way', async () => {
    const capped = await newEpisode('counter', 'count-1');
    const steps = [];
    for (let turn = 0; turn < 4; turn++)
      steps.push(await post(`/v1/episodes/${capped}/step`, { message: { role: 'assistant', content: null, tool_calls: [call(`t${turn}`, 'add', { n: 1 })] } }));
    expect(steps.map((step) => step.body.done)).toEqual([false, false, false, true]);
    expect(steps[3]!.body).toMatchObject({ reason: 'max-turns', reward: 0, answer: null, metrics: { total: 4, turns: 4 } });

    const stopped = await newEpisode('counter', 'count-1');
    const big = await post(`/v1/episodes/${stopped}/step`, { message: { role: 'assistant', content: null, tool_calls: [call('big', 'add', { n: 100 })] } });
    expect(big.body).toMatchObject({ done: true, reason: 'stopped', messages: [{ role: 'tool', content: '100' }], metrics: { total: 100, turns: 1 } });
  });

  it("asks respond after a turn without tool calls: its messages come back, its done ends the game with the rubric's reward", async () => {
    const id = await newEpisode('guess', 'seven');
    expect((await post(`/v1/episodes/${id}/step`, { message: '3' })).body).toEqual({ done: false, messages: [{ role: 'user', content: 'higher' }] });
    // Tools and replies mix: a tool turn asks nothing of respond.
    const tool = await post(`/v1/episodes/${id}/step`, { message: { role: 'assistant', content: null, tool_calls: [call('t', 'add', { n: 1 })] } });
    expect(tool.body).toEqual({ done: false, messages: [{ role: 'tool', tool_call_id: 't', content: '1' }] });
    expect((await post(`/v1/episodes/${id}/step`, { message: '9' })).body.messages).toEqual([{ role: 'user', content: 'lower' }]);
    const found = await post(`/v1/episodes/${id}/step`, { message: { role: 'assistant', content: '7', reasoning_content: 'between 3 and 9' } });
    expect(found.body).toEqual({
      done: true,
      messages: [],
      reward: 1 / 3,
      metrics: { solved: 1 / 3, guesses: 3 },
      answer: '7',
      reason: 'done',
      environment_reason: 'found it',
    });
    const roles = (await get(`/v1/episodes/${id}/state`)).body.messages.map(
      (message: { role: string; content: string }) => `${message.role}:${message.content}`,
    );
    expect(roles.slice(2)).toEqual(['assistant:3', 'user:higher', 'assistant:null', 'tool:1', 'assistant:9', 'user:lower', 'assistant:7']);
  });

  it('asks respond after the last turn too, as a rollout does: its reply is kept and the episode ends at maxTurns', async () => {
    const id = await newEpisode('guess', 'seven');
    const answers = [];
    for (const guessed of ['1', '2', '3', '4', '5']) answers.push(await post(`/v1/episodes/${id}/step`, { message: guessed }));
    expect(answers.map((answer) => answer.body.done)).toEqual([false, false, false, false, true]);
    expect(answers[4]!.body).toMatchObject({ reason: 'max-turns', reward: 0, metrics: { guesses: 5 }, messages: [{ role: 'user', content: 'higher' }] });
  });

  it('a respond that throws and a rubric that throws answer 500 with their codes and error the episode, never a reward', async () => {
    const game = await newEpisode('guess', 'seven');
    const broken = await post(`/v1/episodes/${game}/step`, { message: 'boom' });
    expect(broken).toMatchObject({ status: 500, body: { error: { code: 'ENV_ERR_RESPOND_FAILED', message: expect.stringContaining('the game broke') } } });
    expect(broken.body).not.toHaveProperty('reward');
    const after = await post(`/v1/episodes/${game}/step`, { message: '7' });
    expect(after).toMatchObject({ status: 409, body: { error: { code: 'EPISODE_ERR_DONE', reason: 'errored', error: 'ENV_ERR_RESPOND_FAILED' } } });
    expect((await get(`/v1/episodes/${game}/state`)).body).toMatchObject({ done: true, reward: null, reason: 'errored' });

    const counted = await newEpisode('counter', 'count-1');
    const rubric = await post(`/v1/episodes/${counted}/step`, { message: 'crash' });
    expect(rubric).toMatchObject({ status: 500, body: { error: { code: 'RUBRIC_ERR_FAILED', message: expect.stringContaining('the rubric broke') } } });
    expect((await get(`/v1/episodes/${counted}/state`)).body).toMatchObject({ done: true, reward: null, reason: 'errored' });
    // A sandbox fault in a tool call: 503 with its code (transient), the episode errored, no reward ever.
    const faulted = await newEpisode('counter', 'count-1');
    const sandboxFault = await post(`/v1/episodes/${faulted}/step`, { message: { role: 'assistant', content: null, tool_calls: [call('x', 'crash', {})] } });
    expect(sandboxFault).toMatchObject({ status: 503, body: { error: { code: 'SBX_ERR_CLOSED' } } });
    expect((await post(`/v1/episodes/${faulted}/step`, { message: '0' })).body.error).toMatchObject({ code: 'EPISODE_ERR_DONE', error: 'SBX_ERR_CLOSED' });

    // The same class of fault through POST .../score (a trainer scoring its own completion) keeps its code too.
    const scoredOnly = await newEpisode('counter', 'count-1');
    expect(await post(`/v1/episodes/${scoredOnly}/score`, { completion: 'crash' })).toMatchObject({
      status: 500,
      body: { error: { code: 'RUBRIC_ERR_FAILED' } },
    });
  });

  it('takes one step of an episode at a time: a second step while the first runs is refused, the first completes', async () => {
    const id = await newEpisode('counter', 'count-1');
    let release!: () => void;
    holdAdd = new Promise((resolve) => (release = resolve));
    try {
      const first = post(`/v1/episodes/${id}/step`, { message: { role: 'assistant', content: null, tool_calls: [call('slow', 'add', { n: 1 })] } });
      await expect.poll(async () => (await get(`/v1/episodes/${id}/state`)).body.turns).toBe(1);
      const second = await post(`/v1/episodes/${id}/step`, { message: '1' });
      expect(second).toMatchObject({ status: 409, body: { error: { code: 'EPISODE_ERR_BUSY' } } });
      release();
      expect((await first).body).toEqual({ done: false, messages: [{ role: 'tool', tool_call_id: 'slow', content: '1' }] });
    } finally {
      holdAdd = undefined;
      release();
    }
    expect((await post(`/v1/episodes/${id}/step`, { message: '1' })).body).toMatchObject({ done: true, reward: 1 });
  });
  it('a client that disconnects mid-step cancels the turn and errors the episode', async () => {
    const id = await newEpisode('counter', 'count-1');
    let release!: () => void;
    holdAdd = new Promise((resolve) => (release = resolve));
    const client = new AbortController();
    try {
      const step = fetch(`http://${origin}/v1/episodes/${id}/step`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: { role: 'assistant', content: null, tool_calls: [call('slow', 'add', { n: 1 })] } }),
        signal: client.signal,
      });
      await expect.poll(async () => (await get(`/v1/episodes/${id}/state`)).body.turns).toBe(1);
      client.abort();
      await expect(step).rejects.toThrow();
      await expect.poll(async () => (await get(`/v1/episodes/${id}/state`)).body.reason).toBe('errored');
    } finally {
      holdAdd = undefined;
      release();
    }
    expect((await post(`/v1/episodes/${id}/step`, { message: '1' })).body.error).toMatchObject({ code: 'EPISODE_ERR_DONE', error: 'ERR_ABORTED' });
  });
});

/** A socket to /ws/episodes whose answers are read in order. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers of many shapes
async function openSocket(): Promise<{ send(message: unknown): Promise<{ type: string; data: any }>; raw: WebSocket }> {
  const socket = new WebSocket(`ws://${origin}/ws/episodes`);
  const answers: unknown[] = [];
  const waiting: ((answer: unknown) => void)[] = [];
  socket.on('message', (data) => {
    const answer = JSON.parse(data.toString()) as unknown;
    const waiter = waiting.shift();
    if (waiter) waiter(answer);
    else answers.push(answer);
  });
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  return {
    raw: socket,
    send(message) {
      socket.send(typeof message === 'string' ? message : JSON.stringify(message));
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers of many shapes
      return new Promise<any>((resolve) => (answers.length > 0 ? resolve(answers.shift()) : waiting.push(resolve)));
    },
  };
}

describe('/ws/episodes', () => {
  it('reset, step and state with OpenEnv-style messages; errors typed; closing the socket releases the episode', async () => {
    const socket = await openSocket();
    expect(await socket.send({ type: 'step', data: { message: '1' } })).toMatchObject({ type: 'error', data: { code: 'EPISODE_ERR_NOT_FOUND', status: 404 } });
    expect(await socket.send('not json')).toMatchObject({ type: 'error', data: { code: 'INVALID_REQUEST', status: 400 } });
    expect(await socket.send({ type: 'jump' })).toMatchObject({ type: 'error', data: { code: 'INVALID_REQUEST', field: 'type' } });

    const reset = await socket.send({ type: 'reset', data: { env: 'guess', example_id: 'seven' } });
    expect(reset).toMatchObject({ type: 'observation', data: { reward: null, done: false, observation: { env: 'guess', example_id: 'seven' } } });
    expect(reset.data.observation.prompt.at(-1)).toEqual({ role: 'user', content: 'Guess my number between 1 and 10.' });
    expect(reset.data.observation.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual(['add']);
    const episodeId = reset.data.observation.episode_id as string;

    expect(await socket.send({ type: 'step', data: { message: '8' } })).toEqual({
      type: 'observation',
      data: { observation: { messages: [{ role: 'user', content: 'lower' }] }, reward: null, done: false },
    });
    const unknown = await socket.send({ type: 'step', data: { message: { role: 'assistant', content: null, tool_calls: [call('x', 'nope', {})] } } });
    expect(unknown).toMatchObject({ type: 'error', data: { code: 'EPISODE_ERR_UNKNOWN_TOOL', status: 404, available: ['add'] } });
    expect(await socket.send({ type: 'step', data: { message: '7' } })).toEqual({
      type: 'observation',
      data: {
        observation: { messages: [] },
        reward: 0.5,
        done: true,
        metadata: { metrics: { solved: 0.5, guesses: 2 }, answer: '7', reason: 'done', environment_reason: 'found it' },
      },
    });
    const state = await socket.send({ type: 'state' });
    expect(state).toMatchObject({ type: 'state', data: { episode_id: episodeId, step_count: 2, done: true, reward: 0.5, reason: 'done' } });
    expect(state.data.messages).toHaveLength(2 + 3);
    // The same episode over HTTP, until the socket closes.
    expect((await get(`/v1/episodes/${episodeId}/state`)).body.reward).toBe(0.5);

    // A reset releases the previous episode and starts another.
    const next = await socket.send({ type: 'reset', data: { env: 'counter', example_id: 'count-1' } });
    expect(next.data.observation.episode_id).not.toBe(episodeId);
    expect((await get(`/v1/episodes/${episodeId}`)).body.error.code).toBe('EPISODE_ERR_NOT_FOUND');
    const before = cleanedUp.length;
    socket.raw.close();
    await expect.poll(() => cleanedUp.length).toBe(before + 1);
    expect((await get(`/v1/episodes/${next.data.observation.episode_id}`)).body.error.code).toBe('EPISODE_ERR_NOT_FOUND');
  });

  it('forks its episode as POST /fork does: children continue from its turn, messages and state; refusals typed; the children outlive the socket', async () => {
    const socket = await openSocket();
    expect(await socket.send({ type: 'fork', data: { n: 2 } })).toMatchObject({ type: 'error', data: { code: 'EPISODE_ERR_NOT_FOUND', status: 404 } });
    const reset = await socket.send({ type: 'reset', data: { env: 'counter', example_id: 'count-1' } });
    const parentId = reset.data.observation.episode_id as string;
    const addStep = (n: number) => ({ type: 'step', data: { message: { role: 'assistant', content: null, tool_calls: [call(`add-${n}`, 'add', { n })] } } });
    expect((await socket.send(addStep(5))).data.observation.messages).toEqual([{ role: 'tool', tool_call_id: 'add-5', content: '5' }]);

    for (const n of [0, 33])
      expect(await socket.send({ type: 'fork', data: { n } })).toMatchObject({
        type: 'error',
        data: { code: 'INVALID_REQUEST', field: 'data.n', status: 400 },
      });
    const forked = await socket.send({ type: 'fork', data: { n: 2 } });
    expect(forked).toMatchObject({ type: 'forked', data: { turn: 1 } });
    const childIds = forked.data.ids as string[];
    expect(childIds).toHaveLength(2);
    expect(new Set([parentId, ...childIds]).size).toBe(3);
    expect(forked.data.episodes).toEqual(childIds.map((id) => ({ ...reset.data.observation, episode_id: id })));

    const parentState = (await socket.send({ type: 'state' })).data;
    for (const childId of childIds) {
      const child = (await get(`/v1/episodes/${childId}/state`)).body;
      expect(child).toMatchObject({ turns: 1, done: false, forked_from: { episode: parentId, turn: 1 } });
      expect(child.messages).toEqual(parentState.messages);
    }
    // Each goes on from the copied state on its own; the socket stays on the parent.
    const childStep = await post(`/v1/episodes/${childIds[0]}/step`, {
      message: { role: 'assistant', content: null, tool_calls: [call('c', 'add', { n: 1 })] },
    });
    expect(childStep.body.messages).toEqual([{ role: 'tool', tool_call_id: 'c', content: '6' }]);
    expect((await socket.send(addStep(10))).data.observation.messages).toEqual([{ role: 'tool', tool_call_id: 'add-10', content: '15' }]);
    expect((await get(`/v1/episodes/${childIds[1]}/state`)).body.turns).toBe(1);

    const ended = await socket.send({ type: 'step', data: { message: '15' } });
    expect(ended).toMatchObject({ type: 'observation', data: { done: true, reward: 1 } });
    expect(await socket.send({ type: 'fork', data: { n: 1 } })).toMatchObject({ type: 'error', data: { code: 'EPISODE_ERR_DONE', status: 409 } });

    const closed = new Promise((resolve) => socket.raw.once('close', resolve));
    socket.raw.close();
    await closed;
    await expect.poll(async () => (await get(`/v1/episodes/${parentId}`)).body.error?.code).toBe('EPISODE_ERR_NOT_FOUND');
    for (const childId of childIds) {
      expect((await get(`/v1/episodes/${childId}`)).status).toBe(200);
      expect((await app.inject({ method: 'DELETE', url: `/v1/episodes/${childId}` })).statusCode).toBe(204);
    }
  });

  it('closes a client that sends far ahead of its answers (1008), so waiting frames stay bounded', async () => {
    const socket = await openSocket();
    const closed = new Promise<number>((resolve) => socket.raw.once('close', (code) => resolve(code)));
    for (let frame = 0; frame < 200; frame++) socket.raw.send(JSON.stringify({ type: 'state' }));
    expect(await closed).toBe(1008);
  });
});
