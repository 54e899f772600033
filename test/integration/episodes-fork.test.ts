/**
 * Episode forks (POST /v1/episodes/<id>/fork) through corral's real app and episode service, on real process-backend
 * sandboxes and a real isolate: each child continues the parent from its turn with a copy of its sandbox's files, of
 * its state (the environment's forkState hook when it has one) and of its conversation with the token ids stepped so
 * far; children and parent go on independently; a child's record carries the fork's lineage and its samples start
 * with the shared prefix. Refusals are typed (an isolate cannot fork, n out of bounds, the open-episode quota), and a
 * fork that cannot make every child leaves none behind. The per-principal episode quota is checked here too (creates
 * and fork children alike), in process rather than in an e2e server of its own.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createEpisodeService } from '../../src/cli/runtime/episode-service.js';
import { withServedEnvironments } from '../../src/cli/runtime/environment-catalog-entries.js';
import { type ServedEnvironment, servedEnvironmentsOf } from '../../src/cli/runtime/served-environments.js';
import { loadConfig } from '../../src/config/load-config.js';
import { buildServer } from '../../src/http/build-server.js';
import { poolSandboxSource } from '../../src/mcp/sandbox-source.js';
import { buildToolCatalog } from '../../src/mcp/tool-catalog.js';
import { defineEnvironment, type Environment } from '../../src/runner/contract/environment.js';
import { defineTool } from '../../src/runner/contract/environment-tool.js';
import { SandboxPool } from '../../src/sandbox/pool/sandbox-pool.js';
import { smallWikiIndex } from '../../src/testing/small-wiki-index.js';
import { backendAvailable } from '../helpers/backend-gate.js';

interface BenchState {
  total: number;
  forked: number;
}

const count = defineTool({
  name: 'count',
  description: 'Adds n to the running total and returns it.',
  inputSchema: z.object({ n: z.number().int() }),
  execute: ({ n }, { state }) => ({ text: String(((state as BenchState).total += n)) }),
});

/** forkState's calls, and the call that should throw (0: none), so a test can break one child's copy. */
const forkStateCalls = { made: 0, failAt: 0 };
const cleanedUp: string[] = [];

/** Files and a state: setup writes base.txt; the rubric wants the total as the answer. */
const workbench = defineEnvironment({
  name: 'workbench',
  toolsets: ['files'],
  tools: [count],
  dataset: () => [{ id: 'bench-1', prompt: 'Count, then answer with the total.' }],
  state: (): BenchState => ({ total: 0, forked: 0 }),
  async setup({ sandbox }) {
    await sandbox.files.write({ path: 'base.txt', content: 'from setup' });
  },
  forkState(state) {
    forkStateCalls.made++;
    if (forkStateCalls.made === forkStateCalls.failAt) throw new Error('this copy is refused');
    return { ...state, forked: 1 };
  },
  cleanup: ({ example }) => void cleanedUp.push(example.id),
  rubric: [
    { name: 'correct', weight: 1, score: ({ trajectory, state }) => (trajectory.answer === String(state.total) ? 1 : 0) },
    { name: 'total', weight: 0, score: ({ state }) => state.total },
    { name: 'forked', weight: 0, score: ({ state }) => state.forked },
  ],
  systemPrompt: 'Count, then answer with the total alone.',
  maxTurns: 6,
});

/** The JavaScript REPL lives in a V8 isolate, whose heap cannot be copied. */
const scratchpad = defineEnvironment({
  name: 'scratchpad',
  toolsets: ['js'],
  dataset: () => [{ id: 'pad-1', prompt: 'Compute.' }],
  rubric: [{ name: 'answered', weight: 1, score: ({ trajectory }) => (trajectory.answer ? 1 : 0) }],
  systemPrompt: 'Use javascript.',
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

const processBackend = await backendAvailable('process');
let app: FastifyInstance;
let pool: SandboxPool;

beforeAll(async () => {
  if (!processBackend) return;
  const loaded = loadConfig({ env: {}, flags: { host: '127.0.0.1', port: 0, backend: 'process' } });
  const config = { ...loaded, server: { ...loaded.server, maxEpisodesPerPrincipal: 8, maxEpisodeForks: 4 } };
  const wiki = smallWikiIndex();
  pool = new SandboxPool({ minIdle: 0, healthIntervalMs: 0, reapIntervalMs: 0 });
  const specs = { general: { backend: 'process' as const }, javascript: { backend: 'isolate' as const } };
  const environments = served([workbench, scratchpad]);
  app = buildServer(config, {
    environments: await withServedEnvironments(buildToolCatalog({ wiki }), environments, { wiki, log: () => undefined }),
    sandboxSource: poolSandboxSource(pool, specs),
    pool,
    resolvePrincipal: (headers) => String(headers['x-test-principal'] ?? 'alice'),
    episodes: createEpisodeService({ runtime: { pool, specs, wiki }, environments, dataDir: undefined, server: config.server }),
  });
}, 60_000);

afterAll(async () => {
  await app?.close();
  await pool?.close();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers of many shapes, checked by toEqual/toMatchObject
async function request(method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown, as = 'alice'): Promise<{ status: number; body: any }> {
  const response = await app.inject({
    method,
    url,
    headers: { 'x-test-principal': as, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  return { status: response.statusCode, body: response.body ? (response.json() as unknown) : undefined };
}

async function newEpisode(env: string): Promise<string> {
  const created = await request('POST', '/v1/episodes', { env, example_id: env === 'workbench' ? 'bench-1' : 'pad-1' });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id as string;
}

const call = (id: string, name: string, args: Record<string, unknown>) => ({ id, type: 'function', function: { name, arguments: JSON.stringify(args) } });
const toolTurn = (...calls: ReturnType<typeof call>[]) => ({ role: 'assistant', content: null, tool_calls: calls });
const leased = () => pool.stats().reduce((sum, bucket) => sum + bucket.leased, 0);
const readFile = async (episode: string, path: string) => (await request('POST', `/v1/episodes/${episode}/tools/read_file`, { path })).body;

/** Two turns of token data as a chat template gives them: each prompt extends the previous prompt + completion. */
const TURN_TOKENS = [
  { prompt_token_ids: [1, 2, 3], completion_token_ids: [4, 5], completion_logprobs: [-0.1, -0.2] },
  { prompt_token_ids: [1, 2, 3, 4, 5, 6, 7], completion_token_ids: [8], completion_logprobs: [-0.3] },
];

describe.runIf(processBackend)('POST /v1/episodes/<id>/fork', () => {
  it('forks at turn 2 into 4 children that continue from the same files, state, messages and token ids, independently', async () => {
    const parent = await newEpisode('workbench');
    const first = await request('POST', `/v1/episodes/${parent}/step`, {
      message: toolTurn(call('w', 'write_file', { path: 'parent.txt', content: 'before the fork' }), call('c1', 'count', { n: 2 })),
      tokens: TURN_TOKENS[0],
    });
    expect(first.body.done).toBe(false);
    expect((await request('POST', `/v1/episodes/${parent}/step`, { message: toolTurn(call('c2', 'count', { n: 3 })), tokens: TURN_TOKENS[1] })).body).toEqual({
      done: false,
      messages: [{ role: 'tool', tool_call_id: 'c2', content: '5' }],
    });
    const before = (await request('GET', `/v1/episodes/${parent}/state`)).body;
    expect(before).toMatchObject({ turns: 2, forked_from: null, tokens: TURN_TOKENS.map((tokens, index) => ({ turn: index + 1, ...tokens })) });

    const forked = await request('POST', `/v1/episodes/${parent}/fork`, { n: 4 });
    expect(forked.status, JSON.stringify(forked.body)).toBe(201);
    const children = forked.body.ids as string[];
    expect(children).toHaveLength(4);
    expect(new Set([parent, ...children]).size).toBe(5);
    expect(forked.body.turn).toBe(2);
    expect(forked.body.episodes.map((episode: { id: string }) => episode.id)).toEqual(children);
    const created = (await request('GET', `/v1/episodes/${parent}`)).body;
    for (const episode of forked.body.episodes)
      expect(episode).toMatchObject({ env: 'workbench', example_id: 'bench-1', prompt: created.prompt, tools: created.tools });

    for (const child of children) {
      const state = (await request('GET', `/v1/episodes/${child}/state`)).body;
      expect(state).toMatchObject({ id: child, turns: 2, done: false, messages: before.messages, tokens: before.tokens });
      expect(state.forked_from).toEqual({ episode: parent, turn: 2 });
      // Files written by setup and by the parent's turns came along.
      expect((await readFile(child, 'base.txt')).text).toContain('from setup');
      expect((await readFile(child, 'parent.txt')).text).toContain('before the fork');
    }

    // Each child goes its own way: a file only it has, a total only it reached, its own answer and reward.
    await Promise.all(
      children.map(async (child, index) => {
        const wrote = await request('POST', `/v1/episodes/${child}/tools/write_file`, { path: 'mine.txt', content: `child ${index}` });
        expect(wrote.body.isError).toBe(false);
        const counted = await request('POST', `/v1/episodes/${child}/step`, {
          message: toolTurn(call('c3', 'count', { n: index })),
          tokens: { prompt_token_ids: [1, 2, 3, 4, 5, 6, 7, 8, 9], completion_token_ids: [20 + index], completion_logprobs: [-0.5] },
        });
        expect(counted.body.messages).toEqual([{ role: 'tool', tool_call_id: 'c3', content: String(5 + index) }]);
      }),
    );
    for (const [index, child] of children.entries()) {
      expect((await readFile(child, 'mine.txt')).text).toContain(`child ${index}`);
      const done = await request('POST', `/v1/episodes/${child}/step`, { message: index === 3 ? 'wrong' : String(5 + index) });
      expect(done.body).toMatchObject({ done: true, reward: index === 3 ? 0 : 1, metrics: { total: 5 + index, forked: 1 } });
    }
    // The parent is unchanged: neither the children's files nor their counts reached it.
    expect((await readFile(parent, 'mine.txt')).isError).toBe(true);
    expect((await request('POST', `/v1/episodes/${parent}/step`, { message: '5' })).body).toMatchObject({
      done: true,
      reward: 1,
      metrics: { total: 5, forked: 0 },
    });

    // Records: the children's carry the lineage, and their samples share the parent's prefix, tokens and mask alike.
    const parentRecord = (await request('GET', `/v1/episodes/${parent}/record`)).body;
    expect(parentRecord).not.toHaveProperty('lineage');
    expect(parentRecord.tokens).toEqual(before.tokens);
    const prefix = { ids: [4, 5, 6, 7, 8, 9], mask: [1, 1, 0, 0, 1, 0] };
    for (const [index, child] of children.entries()) {
      const record = (await request('GET', `/v1/episodes/${child}/record`)).body;
      expect(record).toMatchObject({ example_id: 'bench-1', task: 'workbench', turns: 4, error: null, reward: index === 3 ? 0 : 1 });
      expect(record.lineage).toEqual({ kind: 'fork', source_record: parent, from_turn: 3 });
      expect(record.completion.slice(0, before.messages.length - 2)).toEqual(before.messages.slice(2));
      expect(record.samples).toEqual([
        expect.objectContaining({
          prompt_ids: [1, 2, 3],
          completion_ids: [...prefix.ids, 20 + index],
          completion_mask: [...prefix.mask, 1],
          completion_logprobs: [-0.1, -0.2, 0, 0, -0.3, 0, -0.5],
          reward: index === 3 ? 0 : 1,
        }),
      ]);
    }
    for (const episode of [parent, ...children]) expect((await request('DELETE', `/v1/episodes/${episode}`)).status).toBe(204);
    expect(leased()).toBe(0);
  }, 60_000);

  it('refuses typed: n out of bounds, another principal, an ended episode, a record before the end, steps with mismatched logprobs', async () => {
    const parent = await newEpisode('workbench');
    for (const [body, field] of [
      [{}, 'n'],
      [{ n: 0 }, 'n'],
      [{ n: 5 }, 'n'],
      [{ n: 1.5 }, 'n'],
      [{ n: 2, copy: 'all' }, 'copy'],
    ] as const) {
      const refused = await request('POST', `/v1/episodes/${parent}/fork`, body);
      expect([refused.status, refused.body.error.code, refused.body.error.field], JSON.stringify(body)).toEqual([400, 'INVALID_REQUEST', field]);
    }
    expect((await request('POST', `/v1/episodes/${parent}/fork`, { n: 1 }, 'bob')).body.error.code).toBe('EPISODE_ERR_NOT_FOUND');
    expect((await request('GET', `/v1/episodes/${parent}/record`)).body.error).toMatchObject({ code: 'EPISODE_ERR_NOT_DONE' });
    const mismatched = await request('POST', `/v1/episodes/${parent}/step`, {
      message: 'x',
      tokens: { prompt_token_ids: [1], completion_token_ids: [2, 3], completion_logprobs: [-1] },
    });
    expect([mismatched.status, mismatched.body.error.field]).toEqual([400, 'tokens.completion_logprobs']);
    expect((await request('POST', `/v1/episodes/${parent}/step`, { message: '0' })).body).toMatchObject({ done: true, reward: 1 });
    expect((await request('POST', `/v1/episodes/${parent}/fork`, { n: 1 })).body.error).toMatchObject({ code: 'EPISODE_ERR_DONE' });
    expect((await request('DELETE', `/v1/episodes/${parent}`)).status).toBe(204);
  }, 60_000);

  it('holds each principal to its open-episode quota, fork children counted: past it 429 and none made; a delete frees a slot', async () => {
    const parent = await newEpisode('workbench');
    await request('POST', `/v1/episodes/${parent}/tools/count`, { n: 1 });
    const first = await request('POST', `/v1/episodes/${parent}/fork`, { n: 4 });
    expect(first.status).toBe(201);
    const leasedBefore = leased();
    const refused = await request('POST', `/v1/episodes/${parent}/fork`, { n: 4 });
    expect(refused).toMatchObject({ status: 429, body: { error: { code: 'HTTP_ERR_QUOTA_EXCEEDED', quota: 'maxEpisodesPerPrincipal', limit: 8 } } });
    expect(leased()).toBe(leasedBefore);
    // Three more fit exactly (1 + 4 + 3 = 8); then a create is refused too, for alice only.
    const fits = await request('POST', `/v1/episodes/${parent}/fork`, { n: 3 });
    expect(fits.status).toBe(201);
    expect((await request('POST', '/v1/episodes', { env: 'workbench', example_id: 'bench-1' })).status).toBe(429);
    const bobs = await request('POST', '/v1/episodes', { env: 'workbench', example_id: 'bench-1' }, 'bob');
    expect(bobs.status).toBe(201);
    expect((await request('DELETE', `/v1/episodes/${first.body.ids[0]}`)).status).toBe(204);
    const again = await request('POST', '/v1/episodes', { env: 'workbench', example_id: 'bench-1' });
    expect(again.status).toBe(201);
    expect((await request('DELETE', `/v1/episodes/${bobs.body.id}`, undefined, 'bob')).status).toBe(204);
    for (const episode of [parent, again.body.id, ...first.body.ids.slice(1), ...fits.body.ids])
      expect((await request('DELETE', `/v1/episodes/${episode}`)).status).toBe(204);
  }, 60_000);

  it('is all or nothing: when one child cannot be made, the children made are closed and nothing stays leased', async () => {
    const parent = await newEpisode('workbench');
    await request('POST', `/v1/episodes/${parent}/tools/count`, { n: 1 });
    const leasedBefore = leased();
    const cleanupsBefore = cleanedUp.length;
    // The checkpoint's copy, then one per child: the third child's copy throws.
    forkStateCalls.made = 0;
    forkStateCalls.failAt = 4;
    try {
      const refused = await request('POST', `/v1/episodes/${parent}/fork`, { n: 4 });
      expect(refused).toMatchObject({
        status: 500,
        body: { error: { code: 'ENV_ERR_FORK_STATE_FAILED', message: expect.stringContaining('this copy is refused') } },
      });
    } finally {
      forkStateCalls.failAt = 0;
    }
    expect(forkStateCalls.made).toBe(5);
    expect(leased()).toBe(leasedBefore);
    // The three children that were made ran their cleanup hooks on their copies; the parent goes on.
    expect(cleanedUp.length - cleanupsBefore).toBe(3);
    expect((await request('POST', `/v1/episodes/${parent}/step`, { message: '1' })).body).toMatchObject({ done: true, reward: 1 });
    expect((await request('DELETE', `/v1/episodes/${parent}`)).status).toBe(204);
  }, 60_000);

  it('refuses SBX_ERR_UNSUPPORTED when the episode holds an isolate (the JavaScript REPL), and makes no child', async () => {
    const parent = await newEpisode('scratchpad');
    // Not used yet: nothing to copy but the conversation and state, so the fork works.
    const early = await request('POST', `/v1/episodes/${parent}/fork`, { n: 1 });
    expect(early.status).toBe(201);
    expect((await request('POST', `/v1/episodes/${parent}/tools/javascript`, { code: 'globalThis.x = 41; x + 1' })).body.text).toContain('42');
    const leasedBefore = leased();
    const refused = await request('POST', `/v1/episodes/${parent}/fork`, { n: 2 });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.body.error).toMatchObject({ code: 'SBX_ERR_UNSUPPORTED', message: expect.stringMatching(/isolate.*cannot be forked/s) });
    expect(leased()).toBe(leasedBefore);
    for (const episode of [parent, ...early.body.ids]) expect((await request('DELETE', `/v1/episodes/${episode}`)).status).toBe(204);
  }, 60_000);
});
