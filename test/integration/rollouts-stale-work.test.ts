/**
 * The rollout API's stale-work policy through a real server on port 0 (the route, the rollout service, the run driver,
 * the openai agent) and a scripted model: `deadline` and `max_staleness` cancel the rollouts that can no longer make
 * it. Cancelled rollouts are `cancelled` lines, never records: not scored, not in the summary's statistics, not in the
 * series' results.jsonl; a rollout not started by the cutoff never reaches the model.
 *
 * Every request runs three inline examples at max_concurrency 2: `fast` (both rollouts answered at once, so its group
 * streams), `one-slow` (one rollout answered at once, the other held) and `slow` (held). Once both slots hold a
 * slow rollout, the stream has e0's two records and the model has seen five requests; e2#1 waits for a slot.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { buildServer } from '../../src/http/build-server.js';
import { buildToolCatalog } from '../../src/mcp/tool-catalog.js';
import { type ToolRuntime, startToolRuntime } from '../../src/cli/runtime/tool-runtime.js';
import { createRolloutService } from '../../src/cli/runtime/rollout-service.js';
import { defineEnvironment } from '../../src/runner/contract/environment.js';
import { type ModelScript, type ScriptedModelServer, startScriptedModelServer } from '../../src/testing/scripted-model-server.js';

const TOKEN = 'stale-token';
let runtime: ToolRuntime;
let model: ScriptedModelServer;
let app: FastifyInstance;
let baseURL: string;
let runsFolder: string;

const environment = defineEnvironment({
  name: 'stale-work',
  toolsets: [],
  dataset: () => [],
  systemPrompt: 'Answer yes.',
  rubric: [{ name: 'answered', weight: 1, score: ({ trajectory }) => (trajectory.answer === 'yes' ? 1 : 0) }],
});

/** `slow` prompts, and every `one-slow` prompt after its first, are held far beyond any test: only a cancel ends them. */
const seenPrompts = new Map<string, number>();
const script: ModelScript = (body) => {
  const prompt = String(body.messages.findLast((message) => message.role === 'user')?.content ?? '');
  const seen = seenPrompts.get(prompt) ?? 0;
  seenPrompts.set(prompt, seen + 1);
  const held = prompt.startsWith('slow') || (prompt.startsWith('one-slow') && seen > 0);
  return { kind: 'text', content: 'yes', ...(held ? { delayMs: 600_000 } : {}) };
};

beforeAll(async () => {
  runsFolder = mkdtempSync(join(tmpdir(), 'corral-stale-work-'));
  const config = loadConfig({ env: {}, flags: { host: '127.0.0.1', port: 0, token: TOKEN, backend: 'process' } });
  runtime = await startToolRuntime(config, { minIdle: 0, loadWiki: false, log: () => undefined });
  model = await startScriptedModelServer(script);
  app = buildServer(config, {
    environments: buildToolCatalog({}),
    sandboxSource: runtime.sandboxSource,
    viewerRoot: runsFolder,
    rollouts: createRolloutService({ runtime, dataDir: undefined, environments: { 'stale-work': () => environment }, server: { host: '127.0.0.1' } }),
  });
  baseURL = await app.listen({ host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await app?.close();
  await model?.close();
  await runtime?.close();
  if (runsFolder) rmSync(runsFolder, { recursive: true, force: true });
});

type Line = Record<string, unknown>;
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

const examplesTagged = (tag: string) => [
  { id: 'e0', prompt: `fast ${tag}` },
  { id: 'e1', prompt: `one-slow ${tag}` },
  { id: 'e2', prompt: `slow ${tag}` },
];

/** POST /v1/rollouts; the lines arrive through an async iterator as the server streams them. */
async function postRollouts(body: Line): Promise<{ status: number; lines: AsyncGenerator<Line>; text: () => Promise<string> }> {
  const response = await fetch(`${baseURL}/v1/rollouts`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ env: 'stale-work', rollouts_per_example: 2, max_concurrency: 2, model: { base_url: model.baseURL, model: 'scripted' }, ...body }),
  });
  return { status: response.status, lines: ndjson(response), text: () => response.text() };
}

async function* ndjson(response: Response): AsyncGenerator<Line> {
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of response.body!) {
    buffered += decoder.decode(chunk as Uint8Array, { stream: true });
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      if (line) yield JSON.parse(line) as Line;
    }
  }
}

async function readAll(lines: AsyncGenerator<Line>, seen: Line[] = []): Promise<Line[]> {
  for await (const line of lines) seen.push(line);
  return seen;
}

/** Reads until e0's group has streamed and both slots hold a held rollout (the model has seen 5 requests of the tag). */
async function readUntilBothSlotsHeld(lines: AsyncGenerator<Line>, tag: string): Promise<Line[]> {
  const seen: Line[] = [];
  while (seen.filter((line) => line['example_id'] === 'e0').length < 2) {
    const next = await lines.next();
    if (next.done) throw new Error(`the stream ended early: ${JSON.stringify(seen)}`);
    seen.push(next.value);
  }
  while (modelRequests(tag) < 5) await new Promise((resolve) => setTimeout(resolve, 10));
  return seen;
}

const modelRequests = (tag: string) => model.requests.filter((request) => JSON.stringify(request.body.messages).includes(` ${tag}"`)).length;
const records = (lines: Line[]) => lines.filter((line) => line['type'] === undefined);
const cancelledLines = (lines: Line[]) => lines.filter((line) => line['type'] === 'cancelled');
const stateOf = (lines: Line[], exampleId: string) =>
  cancelledLines(lines)
    .filter((line) => line['example_id'] === exampleId)
    .map((line) => line['state'])
    .sort();

async function advancePolicy(policy: string, step: number): Promise<Line> {
  const response = await fetch(`${baseURL}/v1/policies/${policy}/step`, { method: 'POST', headers, body: JSON.stringify({ step }) });
  expect(response.status).toBe(200);
  return (await response.json()) as Line;
}

describe('POST /v1/rollouts: the stale-work policy', () => {
  it('cancels at the deadline: the finished group streams; the rest are cancelled lines, and a rollout not started never starts', async () => {
    const deadline = new Date(Date.now() + 2_500).toISOString();
    const { status, lines } = await postRollouts({ examples: examplesTagged('deadline'), deadline, record: { series: 'stale-deadline', step: 0 } });
    expect(status).toBe(200);
    const stream = await readAll(lines);
    expect(records(stream).map((record) => [record['example_id'], record['rollout_index'], record['reward']])).toEqual([
      ['e0', 0, 1],
      ['e0', 1, 1],
    ]);
    expect(cancelledLines(stream)).toHaveLength(4);
    for (const line of cancelledLines(stream)) expect(line).toMatchObject({ type: 'cancelled', reason: 'deadline', deadline });
    // e1 finished one rollout, but its group did not finish: a group is streamed whole or not at all.
    expect(stateOf(stream, 'e1')).toEqual(['finished', 'running']);
    expect(cancelledLines(stream).filter((line) => line['example_id'] === 'e2')).toEqual([
      expect.objectContaining({ rollout_index: 0, state: 'running' }),
      expect.objectContaining({ rollout_index: 1, state: 'waiting' }),
    ]);
    // e2#1 never reached the model: 2 (e0) + 2 (e1) + 1 (e2#0).
    expect(modelRequests('deadline')).toBe(5);
    expect(stream.at(-1)).toMatchObject({
      type: 'summary',
      status: 'cancelled',
      rollouts: 2,
      errored: 0,
      avg_reward: 1,
      cancelled: { reason: 'deadline', rollouts: 4 },
      series: { name: 'stale-deadline', step: 0, records: 2 },
    });
    // Only the streamed records are kept as scored.
    const kept = readFileSync(join(runsFolder, 'series', 'stale-deadline', 'results.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(kept.map((line) => (JSON.parse(line) as Line)['example_id'])).toEqual(['e0', 'e0']);
  });

  it('a deadline already past starts nothing: every rollout is a cancelled line in state waiting', async () => {
    const { lines } = await postRollouts({ examples: examplesTagged('past'), deadline: new Date(Date.now() - 1_000).toISOString() });
    const stream = await readAll(lines);
    expect(records(stream)).toEqual([]);
    expect(cancelledLines(stream).map((line) => [line['example_id'], line['rollout_index'], line['state'], line['reason']])).toEqual([
      ['e0', 0, 'waiting', 'deadline'],
      ['e0', 1, 'waiting', 'deadline'],
      ['e1', 0, 'waiting', 'deadline'],
      ['e1', 1, 'waiting', 'deadline'],
      ['e2', 0, 'waiting', 'deadline'],
      ['e2', 1, 'waiting', 'deadline'],
    ]);
    expect(stream.at(-1)).toMatchObject({
      type: 'summary',
      status: 'cancelled',
      rollouts: 0,
      avg_reward: null,
      cancelled: { reason: 'deadline', rollouts: 6 },
    });
    expect(modelRequests('past')).toBe(0);
  });

  it('cancels on staleness when the trainer moves its policy more than max_staleness steps on, and only that policy', async () => {
    const { lines } = await postRollouts({ examples: examplesTagged('endpoint'), policy: 'trainer-a', policy_step: 3, max_staleness: 1 });
    const stream = await readUntilBothSlotsHeld(lines, 'endpoint');
    // One step on is within max_staleness 1; two steps on is not.
    expect(await advancePolicy('trainer-a', 4)).toEqual({ policy: 'trainer-a', step: 4 });
    // Another policy's clock, and its request, are not touched.
    const other = await postRollouts({ examples: [{ id: 'b0', prompt: 'fast other-policy' }], policy: 'trainer-b', policy_step: 0, max_staleness: 0 });
    expect((await readAll(other.lines)).at(-1)).toMatchObject({ type: 'summary', status: 'complete', rollouts: 2 });
    expect(await advancePolicy('trainer-a', 5)).toEqual({ policy: 'trainer-a', step: 5 });
    await readAll(lines, stream);
    expect(records(stream).map((record) => record['example_id'])).toEqual(['e0', 'e0']);
    expect(cancelledLines(stream)).toHaveLength(4);
    for (const line of cancelledLines(stream))
      expect(line).toMatchObject({ type: 'cancelled', reason: 'stale', policy: 'trainer-a', policy_step: 3, current_step: 5, max_staleness: 1 });
    expect(stateOf(stream, 'e2')).toEqual(['running', 'waiting']);
    expect(modelRequests('endpoint')).toBe(5);
    expect(stream.at(-1)).toMatchObject({ type: 'summary', status: 'cancelled', rollouts: 2, avg_reward: 1, cancelled: { reason: 'stale', rollouts: 4 } });

    // The clock never goes back, and a request already too stale starts nothing.
    expect(await advancePolicy('trainer-a', 2)).toEqual({ policy: 'trainer-a', step: 5 });
    const late = await readAll((await postRollouts({ examples: examplesTagged('late'), policy: 'trainer-a', policy_step: 2, max_staleness: 2 })).lines);
    expect(cancelledLines(late).map((line) => line['state'])).toEqual(Array(6).fill('waiting'));
    expect(modelRequests('late')).toBe(0);
  });

  it("a later request's policy_step moves the clock too", async () => {
    const { lines } = await postRollouts({ examples: examplesTagged('field'), policy: 'trainer-c', policy_step: 0, max_staleness: 0 });
    const stream = await readUntilBothSlotsHeld(lines, 'field');
    const next = await postRollouts({ examples: [{ id: 'n0', prompt: 'fast next-step' }], policy: 'trainer-c', policy_step: 1, max_staleness: 0 });
    expect((await readAll(next.lines)).at(-1)).toMatchObject({ type: 'summary', status: 'complete', rollouts: 2 });
    await readAll(lines, stream);
    expect(records(stream).map((record) => record['example_id'])).toEqual(['e0', 'e0']);
    expect(cancelledLines(stream).map((line) => [line['reason'], line['current_step']])).toEqual(Array(4).fill(['stale', 1]));
    expect(stream.at(-1)).toMatchObject({ status: 'cancelled', cancelled: { reason: 'stale', rollouts: 4 } });
  });

  it('refuses max_staleness without policy_step, a deadline without an offset, and a bad step, naming the field', async () => {
    const staleness = await postRollouts({ examples: examplesTagged('refused'), max_staleness: 1 });
    expect(staleness.status).toBe(400);
    expect(JSON.parse(await staleness.text())).toMatchObject({ error: { code: 'INVALID_REQUEST', field: 'max_staleness' } });
    const deadline = await postRollouts({ examples: examplesTagged('refused'), deadline: '2026-12-03T16:20:00' });
    expect(deadline.status).toBe(400);
    expect(JSON.parse(await deadline.text())).toMatchObject({ error: { code: 'INVALID_REQUEST', field: 'deadline' } });
    const step = await fetch(`${baseURL}/v1/policies/trainer-a/step`, { method: 'POST', headers, body: JSON.stringify({ step: -1 }) });
    expect(step.status).toBe(400);
    expect(await step.json()).toMatchObject({ error: { code: 'INVALID_REQUEST', field: 'step' } });
    expect(modelRequests('refused')).toBe(0);
  });
});
