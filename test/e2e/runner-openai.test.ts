/**
 * `corral eval wiki-search --agent openai` as a real child process, against the scripted model server over real
 * HTTP, on a tiny invented corpus (test/fixtures/runner). One run covers multi-turn tool use, parallel tool calls,
 * malformed arguments and unknown tools (readable errors, the rollout goes on), a model that keeps answering 500
 * (retried, then errored with boundary 'model', siblings unharmed), and the results.jsonl / metadata.json layout.
 * Model timeouts need a short per-request timeout, which the CLI does not expose, so that case runs the same
 * composition in-process through the RolloutService.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { startToolRuntime, type ToolRuntime } from '../../src/cli/runtime/tool-runtime.js';
import { createRolloutService } from '../../src/cli/runtime/rollout-service.js';
import { rolloutRequestSchema } from '../../src/http/rollouts-contract.js';
import type { ResultRecord } from '../../src/runner/trajectory/result-record.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import {
  type ChatCompletionRequestBody,
  type ModelReply,
  startScriptedModelServer,
  type ScriptedModelServer,
} from '../../src/testing/scripted-model-server.js';
import { RUNNER_FIXTURES, readMetadata, readResults, runCorral } from './runner-cli.js';

const processBackend = await backendAvailable('process');
const PAGES = join(RUNNER_FIXTURES, 'tiny-pages.jsonl');
const QUESTIONS = join(RUNNER_FIXTURES, 'tiny-questions.jsonl');

const userQuestion = (body: ChatCompletionRequestBody) => String(body.messages.find((message) => message.role === 'user')?.content ?? '');
const assistantTurns = (body: ChatCompletionRequestBody) => body.messages.filter((message) => message.role === 'assistant').length;
const calls = (...toolCalls: { name: string; arguments: string | Record<string, unknown> }[]): ModelReply => ({ kind: 'tool-calls', toolCalls });
const text = (content: string): ModelReply => ({ kind: 'text', content });

/** Plays one scripted "model" per question; the question text picks the behaviour, the turn count the step. */
function wikiScript(): (body: ChatCompletionRequestBody) => ModelReply {
  const firstAttemptSeen = new Set<string>();
  return (body) => {
    const question = userQuestion(body);
    const turn = assistantTurns(body);
    if (question.includes('Who opened')) {
      // Two calls in one turn (parallel), then a read, then the answer.
      if (turn === 0)
        return calls(
          { name: 'search_pages', arguments: { query: 'Marrow Valley Railway opened' } },
          { name: 'view_sections', arguments: { page_id: 'marrow_valley_railway' } },
        );
      if (turn === 1) return calls({ name: 'read_section', arguments: { section_id: 'marrow_valley_railway:full' } });
      return text('Harriet Lowell');
    }
    if (question.includes('How many stations')) {
      // Malformed JSON and an unknown tool in one turn, then arguments of the wrong type: all readable errors.
      if (turn === 0) return calls({ name: 'search_pages', arguments: '{"query": "Marrow' }, { name: 'no_such_tool', arguments: {} });
      if (turn === 1) return calls({ name: 'read_section', arguments: { section_id: 42 } });
      return text('seven');
    }
    if (question.includes('Copper Kettle')) return { kind: 'http-error', status: 500, message: 'scripted outage' };
    if (question.includes('glass orchid')) {
      // The first request of each rollout fails once; the agent's retry gets the answer.
      const key = `${question}#${String(body.seed)}`;
      if (!firstAttemptSeen.has(key)) {
        firstAttemptSeen.add(key);
        return { kind: 'http-error', status: 503, message: 'warming up' };
      }
      return text('night moths');
    }
    return text('Daniel Whitcombe');
  };
}

describe.skipIf(!processBackend)('corral eval wiki-search --agent openai (scripted model over HTTP)', () => {
  let model: ScriptedModelServer;
  let directory: string;
  let records: ResultRecord[];
  let stderr: string;

  beforeAll(async () => {
    model = await startScriptedModelServer(wikiScript());
    directory = mkdtempSync(join(tmpdir(), 'corral-runner-openai-'));
    const out = join(directory, 'run');
    const args = ['eval', 'wiki-search', '--agent', 'openai', '--model', 'scripted', '--base-url', model.baseURL, '--api-key', 'test-key'];
    const result = await runCorral([
      ...args,
      '--backend',
      'process',
      '--corpus',
      PAGES,
      '--questions',
      QUESTIONS,
      '-r',
      '2',
      '-c',
      '4',
      '--seed',
      '7',
      '--out',
      out,
      '--no-progress',
    ]);
    stderr = result.stderr;
    // q3's two rollouts error (the model answers 500): a complete run with errored rollouts exits 1 and says how many.
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain('2 of 10 rollouts errored');
    expect(result.stdout).toContain('mean reward');
    records = readResults(out);
    directory = out;
  }, 120_000);

  afterAll(async () => {
    await model?.close();
    if (directory) rmSync(join(directory, '..'), { recursive: true, force: true });
  });

  const recordsFor = (exampleId: string) => records.filter((record) => record.example_id === exampleId).sort((a, b) => a.rollout_index - b.rollout_index);

  it('writes one vf-eval-shaped record per rollout and metadata.json with the run averages', () => {
    expect(records).toHaveLength(10);
    expect(new Set(records.map((record) => `${record.example_id}#${record.rollout_index}`)).size).toBe(10);
    for (const record of records) {
      expect(Object.keys(record)).toEqual(
        expect.arrayContaining(['example_id', 'prompt', 'completion', 'answer', 'task', 'info', 'reward', 'metrics', 'error', 'timing', 'group']),
      );
      expect(record.task).toBe('wiki-search');
      expect(record.prompt.map((message) => message.role)).toEqual(['system', 'user']);
      expect(record.info).toHaveProperty('answers');
      if (!record.error) for (const metric of ['exact_match', 'f1', 'tool_calls', 'turns']) expect(typeof record[metric], metric).toBe('number');
    }
    const metadata = readMetadata(directory);
    expect(metadata).toMatchObject({
      env_id: 'wiki-search',
      model: 'scripted',
      agent: 'openai',
      num_examples: 5,
      rollouts_per_example: 2,
      status: 'complete',
      rollouts: 10,
      errored: 2,
    });
    // Scored: q1, q2, q4 right (x2), q5 wrong (x2); q3 errored and excluded, never counted as 0.
    expect(metadata.avg_reward).toBeCloseTo(0.75, 10);
    expect(metadata).toHaveProperty('avg_exact_match');
    expect(metadata).toHaveProperty('avg_f1');
    expect(stderr).toContain('wiki-search: 5 examples x 2 rollouts');
  });

  it('uses tools over several turns, with two calls in one turn, then answers', () => {
    for (const record of recordsFor('q1')) {
      expect(record.error).toBeNull();
      expect(record.reward).toBe(1);
      expect(record.completion.map((message) => message.role)).toEqual(['assistant', 'tool', 'tool', 'assistant', 'tool', 'assistant']);
      const first = record.completion[0] as { tool_calls: { id: string; function: { name: string } }[] };
      expect(first.tool_calls.map((call) => call.function.name)).toEqual(['search_pages', 'view_sections']);
      // Tool messages answer the calls in call order, and the page text reached the model.
      expect(record.completion.slice(1, 3).map((message) => (message as { tool_call_id: string }).tool_call_id)).toEqual(
        first.tool_calls.map((call) => call.id),
      );
      expect(record.completion[4]!.content).toContain('Harriet Lowell');
      expect(record.timing.tool_calls.map((call) => [call.name, call.turn])).toEqual([
        ['search_pages', 1],
        ['view_sections', 1],
        ['read_section', 2],
      ]);
      expect(record.turns).toBe(3);
      expect(record.group).toMatchObject({ mean: 1, std: 0, size: 2, advantage: 0 });
    }
  });

  it('turns malformed arguments, unknown tools and schema-invalid arguments into readable tool errors and carries on', () => {
    for (const record of recordsFor('q2')) {
      expect(record.error).toBeNull();
      expect(record.reward).toBe(1);
      const toolTexts = record.completion.filter((message) => message.role === 'tool').map((message) => message.content);
      expect(toolTexts[0]).toMatch(/not valid JSON/);
      expect(toolTexts[1]).toMatch(/unknown tool 'no_such_tool'.*search_pages/s);
      expect(toolTexts[2]).toMatch(/section_id/);
      expect(record.timing.tool_calls.every((call) => call.isError)).toBe(true);
    }
  });

  it("retries a model that answers 500, then records the rollout as errored (boundary 'model'), never scored 0", () => {
    for (const record of recordsFor('q3')) {
      expect(record.reward).toBeNull();
      expect(record.error).toMatchObject({ boundary: 'model', code: 'MODEL_ERR_SERVER', transient: true });
      expect(record.error!.message).toMatch(/500/);
      expect(record.attempts).toBe(1);
      expect(record.exact_match).toBeUndefined();
    }
    // The agent's own retries: the first attempt plus 4 (the openai agent's default) per rollout.
    expect(model.requests.filter((request) => userQuestion(request.body).includes('Copper Kettle'))).toHaveLength(2 * 5);
    expect(readMetadata(directory).errors_by_code).toEqual({ MODEL_ERR_SERVER: 2 });
  });

  it('recovers from a transient 503 without the rollout noticing, and sends distinct seeds per rollout', () => {
    const orchid = recordsFor('q4');
    expect(orchid.map((record) => [record.reward, record.error])).toEqual([
      [1, null],
      [1, null],
    ]);
    const seeds = model.requests.filter((request) => userQuestion(request.body).includes('glass orchid')).map((request) => request.body.seed);
    expect(seeds.sort()).toEqual([7, 7, 8, 8]);
  });

  it('scores a wrong answer 0 with partial F1, and keeps errored rollouts out of group statistics', () => {
    for (const record of recordsFor('q5')) {
      expect(record.reward).toBe(0);
      expect(record.f1).toBeGreaterThan(0.5);
      expect(record.final_answer).toBe('Daniel Whitcombe');
    }
    for (const record of recordsFor('q3')) expect(record.group).toMatchObject({ size: 0, advantage: null });
  });
});

/** Ten minutes: longer than any test timeout, so a stalled answer never arrives within a test. */
const STALL_MS = 600_000;

describe.skipIf(!processBackend)('model timeouts, through the RolloutService composition in-process', () => {
  let runtime: ToolRuntime;
  let model: ScriptedModelServer;

  beforeAll(async () => {
    const config = loadConfig({ env: {}, flags: { backend: 'process' } });
    runtime = await startToolRuntime(config, { corpusPaths: [PAGES], minIdle: 0, loadWiki: true, log: () => undefined });
    model = await startScriptedModelServer((body) =>
      userQuestion(body).includes('slow') ? { kind: 'text', content: 'too late', delayMs: STALL_MS } : text('Harriet Lowell'),
    );
  });

  afterAll(async () => {
    await model?.close();
    await runtime?.close();
  });

  it("times out each attempt, retries, then records boundary 'model' with MODEL_ERR_TIMEOUT; the sibling is fine", async () => {
    // Bound to loopback like a local server, so the scripted model on 127.0.0.1 is an allowed endpoint.
    const service = createRolloutService({ runtime, dataDir: undefined, server: { host: '127.0.0.1' } });
    const request = rolloutRequestSchema.parse({
      env: 'wiki-search',
      examples: [
        { id: 'slow', prompt: 'A slow question?', answer: 'x' },
        { id: 'fast', prompt: 'Who opened the Marrow Valley Railway?', answer: 'Harriet Lowell' },
      ],
      model: { base_url: model.baseURL, model: 'scripted', timeout_ms: 300, max_retries: 1 },
    });
    const prepared = await service.prepare(request, { abortSignal: new AbortController().signal });
    const records: ResultRecord[] = [];
    // The slow answer would take STALL_MS, past this test's timeout: the run can only end because each attempt timed out.
    const stats = await prepared.run({ abortSignal: new AbortController().signal, onGroup: (group) => records.push(...(group as ResultRecord[])) });
    const slow = records.find((record) => record.example_id === 'slow')!;
    expect(slow.error).toMatchObject({ boundary: 'model', code: 'MODEL_ERR_TIMEOUT', transient: true });
    expect(slow.reward).toBeNull();
    expect(model.requests.filter((entry) => userQuestion(entry.body).includes('slow'))).toHaveLength(2);
    expect(records.find((record) => record.example_id === 'fast')).toMatchObject({ reward: 1, error: null });
    expect(stats).toMatchObject({ rollouts: 2, errored: 1, avg_reward: 1, errors_by_code: { MODEL_ERR_TIMEOUT: 1 } });
  });
});
