/**
 * POST /v1/rollouts over real HTTP, as a remote trainer uses it: NDJSON result records as groups finish (the
 * records results.jsonl holds), a summary line last, 400s that name the field, the same auth and Host checks as
 * every route, and cancellation (client disconnect, server shutdown) that releases every sandbox.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChatCompletionRequestBody,
  type ModelReply,
  startScriptedModelServer,
  type ScriptedModelServer,
} from '../../src/testing/scripted-model-server.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { rawHttp } from '../helpers/raw-http.js';
import { RUNNER_FIXTURES, spawnCorral } from './runner-cli.js';
import { readNdjson, type RolloutServer, startRolloutServer, waitFor } from './runner-rollout-server.js';

const processBackend = await backendAvailable('process');

/** Every field of a results.jsonl line (src/runner/trajectory/result-record.ts), besides metric keys. */
const RECORD_FIELDS = [
  'version',
  'example_id',
  'rollout_index',
  'task',
  'prompt',
  'completion',
  'answer',
  'final_answer',
  'info',
  'reward',
  'metrics',
  'group',
  'error',
  'turns',
  'timing',
  'events',
  'tokens',
  'attempts',
];
const TINY_SOLUTIONS: Record<string, string> = {
  add_pair: 'def add_pair(a: int, b: int) -> int:\n    return a + b\n',
  shout: "def shout(word: str) -> str:\n    return word.upper() + '!'\n",
};

const userText = (body: ChatCompletionRequestBody) => String(body.messages.find((message) => message.role === 'user')?.content ?? '');
const turnOf = (body: ChatCompletionRequestBody) => body.messages.filter((message) => message.role === 'assistant').length;

/** The final answers of 'slow' questions wait for this gate; the streaming test holds it shut until the fast group arrives. */
let slowAnswersMayGo: Promise<void> = Promise.resolve();

/** Wiki questions answered after one read; 'slow' waits for its gate; code problems write the reference; 'hang' sleeps in bash. */
function script(body: ChatCompletionRequestBody): ModelReply | Promise<ModelReply> {
  const question = userText(body);
  const turn = turnOf(body);
  if (question.includes('hang'))
    return turn === 0
      ? { kind: 'tool-calls', toolCalls: [{ name: 'bash', arguments: { command: 'sleep 30', timeout_s: 60 } }] }
      : { kind: 'text', content: 'done' };
  const solution = Object.entries(TINY_SOLUTIONS).find(([name]) => question.includes(name))?.[1];
  if (solution)
    return turn === 0
      ? { kind: 'tool-calls', toolCalls: [{ name: 'write_file', arguments: { path: 'solution.py', content: solution } }] }
      : { kind: 'text', content: 'Written to solution.py.' };
  if (turn === 0) return { kind: 'tool-calls', toolCalls: [{ name: 'read_section', arguments: { section_id: 'marrow_valley_railway:full' } }] };
  const tokens = { promptTokenIds: [1, 2, 3], completionTokenIds: [4, 5], logprobs: [-0.25, -0.5] };
  const answer: ModelReply = { kind: 'text', content: question.includes('stations') ? 'seven' : 'Harriet Lowell', tokens };
  return question.includes('slow') ? slowAnswersMayGo.then(() => answer) : answer;
}

describe.skipIf(!processBackend)('POST /v1/rollouts', () => {
  let server: RolloutServer;
  let model: ScriptedModelServer;
  const modelField = () => ({ base_url: model.baseURL, model: 'scripted', api_key: 'sk-test' });

  beforeAll(async () => {
    model = await startScriptedModelServer(script);
    server = await startRolloutServer();
  });

  afterAll(async () => {
    await server?.close();
    await model?.close();
  });

  it('streams each group as NDJSON result records when it finishes, then one summary line', async () => {
    // The slow group cannot finish until the client has read the fast group's two lines: a server that held the
    // records back until the end would never release it, and the test would time out.
    let openGate = () => undefined as void;
    slowAnswersMayGo = new Promise<void>((resolveGate) => (openGate = resolveGate));
    const response = await server.post({
      env: 'wiki-search',
      examples: [
        { id: 'slow', prompt: 'A slow one: how many stations does the Marrow Valley Railway have?', answer: 'seven' },
        { id: 'fast', prompt: 'Who opened the Marrow Valley Railway?', answer: 'Harriet Lowell', info: { source: 'test' } },
      ],
      rollouts_per_example: 2,
      model: modelField(),
      sampling_args: { temperature: 0.7, logprobs: true },
      seed: 11,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const lines = await readNdjson(response, (_line, soFar) => {
      if (soFar.length === 2) openGate();
    });
    slowAnswersMayGo = Promise.resolve();
    expect(lines.map((line) => line.value.example_id ?? line.value.type)).toEqual(['fast', 'fast', 'slow', 'slow', 'summary']);
    for (const { value } of lines.slice(0, 4)) {
      expect(Object.keys(value)).toEqual(expect.arrayContaining(RECORD_FIELDS));
      expect(value).toMatchObject({ task: 'wiki-search', reward: 1, exact_match: 1, error: null, group: { mean: 1, size: 2 } });
      expect(value.tokens).toEqual([{ turn: 1 }, { turn: 2, prompt_token_ids: [1, 2, 3], completion_token_ids: [4, 5], completion_logprobs: [-0.25, -0.5] }]);
    }
    expect(lines[0]!.value.info).toEqual({ source: 'test' });
    expect(lines[4]!.value).toMatchObject({
      type: 'summary',
      status: 'complete',
      env_id: 'wiki-search',
      model: 'scripted',
      num_examples: 2,
      rollouts_per_example: 2,
      rollouts: 4,
      errored: 0,
      avg_reward: 1,
      avg_exact_match: 1,
      seed: 11,
    });
    const sent = model.requests.filter((request) => userText(request.body).includes('Who opened'));
    expect(sent.map((request) => [request.body.temperature, request.body.logprobs, request.headers.authorization])).toContainEqual([
      0.7,
      true,
      'Bearer sk-test',
    ]);
    expect(new Set(sent.map((request) => request.body.seed))).toEqual(new Set([11, 12]));
  });

  it('selects dataset examples by example_ids or as the first n', async () => {
    const byId = await readNdjson(await server.post({ env: 'python-code', example_ids: ['Tiny/1', 'Tiny/0'], model: modelField(), max_concurrency: 2 }));
    expect(new Set(byId.slice(0, -1).map((line) => line.value.example_id))).toEqual(new Set(['Tiny/0', 'Tiny/1']));
    const summary = byId.at(-1)!.value;
    expect(summary).toMatchObject({ type: 'summary', status: 'complete', num_examples: 2, rollouts: 2, errored: 0, avg_reward: 1, avg_tests_pass: 1 });
    const byCount = await readNdjson(await server.post({ env: 'python-code', n: 1, model: modelField() }));
    expect(byCount.map((line) => line.value.example_id ?? line.value.type)).toEqual(['Tiny/0', 'summary']);
    expect(byCount[0]!.value).toMatchObject({ reward: 1, tests_pass: 1 });
  });

  it('answers 400 with a JSON error naming the offending field', async () => {
    const model = modelField();
    const cases: [unknown, string][] = [
      [{ n: 1, model }, 'env'],
      [{ env: 'wiki-search', n: 1 }, 'model'],
      [{ env: 'wiki-search', n: 1, model: { ...model, base_url: 'not a url' } }, 'model.base_url'],
      [{ env: 'wiki-search', n: 1, model, rollouts_per_example: 0 }, 'rollouts_per_example'],
      [{ env: 'wiki-search', n: 1, model, temperature: 0.5 }, 'temperature'],
      [{ env: 'wiki-search', examples: [{ id: 'a' }], model }, 'examples.0.prompt'],
      [
        {
          env: 'wiki-search',
          examples: [
            { id: 'a', prompt: 'x' },
            { id: 'a', prompt: 'y' },
          ],
          model,
        },
        'examples',
      ],
      [{ env: 'wiki-search', n: 1, examples: [{ id: 'a', prompt: 'x' }], model }, 'n'],
      [{ env: 'wiki-search', model }, 'n'],
      [{ env: 'no-such-env', n: 1, model }, 'env'],
      [{ env: './examples/custom-env/index.ts', n: 1, model }, 'env'],
      [{ env: 'python-code', example_ids: ['Tiny/0', 'Nope/9'], model }, 'example_ids'],
      [{ env: 'python-code', n: 1, model, sampling_args: { model: 'other' } }, 'sampling_args'],
      // An inline code problem without tests could only run to an error at scoring.
      [{ env: 'python-code', examples: [{ id: 'no-tests', prompt: 'write f' }], model }, 'examples.0.info'],
      [
        {
          env: 'python-code',
          examples: [
            { id: 'ok', prompt: 'x', info: { format: 'mbpp', tests: ['assert True'] } },
            { id: 'empty', prompt: 'y', info: {} },
          ],
          model,
        },
        'examples.1.info',
      ],
    ];
    for (const [body, field] of cases) {
      const response = await server.post(body);
      const reply = (await response.json()) as { error: { code: string; message: string; field: string } };
      expect([response.status, reply.error.field], JSON.stringify(body)).toEqual([400, field]);
      expect(reply.error.message).toContain(field);
    }
    const notJson = await fetch(`${server.baseUrl}/v1/rollouts`, {
      method: 'POST',
      headers: { authorization: 'Bearer rollout-token', 'content-type': 'application/json' },
      body: '{"env":',
    });
    expect(notJson.status).toBe(400);
    expect(server.leased()).toBe(0);
  });

  it('applies the bearer token and Host checks like every other route', async () => {
    const body = JSON.stringify({ env: 'wiki-search', n: 1, model: modelField() });
    const noToken = await rawHttp(server.port, { method: 'POST', path: '/v1/rollouts', headers: { 'content-type': 'application/json' }, body });
    expect(noToken.status).toBe(401);
    expect(noToken.headers['www-authenticate']).toBe('Bearer');
    const foreignHost = await rawHttp(server.port, {
      method: 'POST',
      path: '/v1/rollouts',
      headers: { 'content-type': 'application/json', authorization: 'Bearer rollout-token', host: 'evil.example' },
      body,
    });
    expect(foreignHost.status).toBe(403);
  });

  it('a client that disconnects cancels its rollouts and every sandbox is released', async () => {
    const before = model.requests.length;
    expect(server.leased()).toBe(0);
    const controller = new AbortController();
    const examples = ['a', 'b', 'c'].map((id) => ({ id, prompt: `hang ${id}`, info: { format: 'humaneval', tests: '', entry_point: 'f' } }));
    const response = await server.post(
      { env: 'python-code', examples, rollouts_per_example: 2, model: modelField(), max_concurrency: 6 },
      { signal: controller.signal },
    );
    expect(response.status).toBe(200);
    await waitFor(
      () => server.leased() === 6,
      30_000,
      () => `leased ${server.leased()} of 6`,
    );
    const metrics = await (await fetch(`${server.baseUrl}/metrics`, { headers: { authorization: 'Bearer rollout-token' } })).text();
    expect(metrics).toMatch(/corral_pool_sandboxes\{[^}]*state="leased"\} 6/);
    controller.abort();
    await waitFor(
      () => server.leased() === 0,
      15_000,
      () => `still leased: ${server.leased()}`,
    );
    // No further model turns: each rollout stopped inside its bash call.
    expect(model.requests.length - before).toBe(6);
    // The server is unharmed and runs the next request.
    const next = await readNdjson(await server.post({ env: 'python-code', n: 1, model: modelField() }));
    expect(next.at(-1)!.value).toMatchObject({ status: 'complete', avg_reward: 1 });
  });

  it('closing the server ends open streams with a cancelled summary and releases their sandboxes first', async () => {
    const own = await startRolloutServer();
    try {
      const response = await own.post({
        env: 'python-code',
        examples: [{ id: 'h', prompt: 'hang h', info: { format: 'humaneval', tests: '', entry_point: 'f' } }],
        rollouts_per_example: 2,
        model: modelField(),
      });
      const lines = readNdjson(response);
      await waitFor(
        () => own.leased() === 2,
        30_000,
        () => `leased ${own.leased()} of 2`,
      );
      await own.app.close();
      expect(own.leased()).toBe(0);
      expect((await lines).map((line) => line.value)).toEqual([expect.objectContaining({ type: 'summary', status: 'cancelled', rollouts: 0 })]);
    } finally {
      await own.close();
    }
  });
});

describe.skipIf(!processBackend)('corral serve offers the rollout API', () => {
  it('runs a rollout request end to end in a real `corral serve` process, which then exits cleanly', async () => {
    const model = await startScriptedModelServer(script);
    const child = spawnCorral([
      'serve',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--backend',
      'process',
      '--token',
      'serve-token',
      '--corpus',
      join(RUNNER_FIXTURES, 'tiny-pages.jsonl'),
    ]);
    try {
      await waitFor(
        () => /listening on http/.test(child.output.stderr),
        60_000,
        () => child.output.stderr,
      );
      const baseUrl = /listening on (http:\/\/\S+)/.exec(child.output.stderr)![1]!;
      const response = await fetch(`${baseUrl}/v1/rollouts`, {
        method: 'POST',
        headers: { authorization: 'Bearer serve-token', 'content-type': 'application/json' },
        body: JSON.stringify({
          env: 'wiki-search',
          examples: [{ id: 'q', prompt: 'Who opened the Marrow Valley Railway?', answer: 'Harriet Lowell' }],
          model: { base_url: model.baseURL, model: 'scripted' },
        }),
      });
      const lines = await readNdjson(response);
      expect(lines.map((line) => line.value)).toEqual([
        expect.objectContaining({ example_id: 'q', reward: 1 }),
        expect.objectContaining({ type: 'summary', status: 'complete' }),
      ]);
      child.kill('SIGTERM');
      expect(await child.exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
      await model.close();
    }
  });
});
