import { mkdtempSync, readFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CorralError } from '../../../../src/core/errors.js';
import { ScriptedAgent } from '../../../../src/runner/agents/scripted/scripted-agent.js';
import { defineEnvironment, type Example } from '../../../../src/runner/contract/environment.js';
import type { ToolSession, ToolSessionFactory } from '../../../../src/runner/contract/tool-session.js';
import { runEvaluation } from '../../../../src/runner/scheduler/run-evaluation.js';
import { erroredRecord } from '../../../../src/runner/run/errored-record.js';
import type { ResultRecord } from '../../../../src/runner/trajectory/result-record.js';
import { ResultsWriter } from '../../../../src/runner/trajectory/results-writer.js';

/** Tool sessions backed by a counter tool; can fail opening (like a sandbox that cannot be created). */
function fakeTools(options: { failOpens?: number; transient?: boolean } = {}) {
  let failures = options.failOpens ?? 0;
  const state = { opened: 0, closed: 0 };
  const factory: ToolSessionFactory = {
    async open() {
      if (failures > 0) {
        failures--;
        throw new CorralError(options.transient === false ? 'SBX_ERR_UNSUPPORTED' : 'POOL_ERR_CREATE_FAILED', 'no sandbox');
      }
      state.opened++;
      const session: ToolSession = {
        tools: [{ name: 'double', description: 'doubles n', inputSchema: { type: 'object' } }],
        async call(_name, args) {
          return { text: String(Number(args.n) * 2), isError: false };
        },
        async close() {
          state.closed++;
        },
      };
      return session;
    },
  };
  return { factory, state };
}

const environment = defineEnvironment({
  name: 'double',
  toolsets: ['python'],
  dataset: () => [],
  systemPrompt: 'double the number',
  rubric: [
    { name: 'correct', weight: 1, score: ({ example, trajectory }) => (trajectory.answer === String(example.answer) ? 1 : 0) },
    { name: 'turns', weight: 0, score: ({ trajectory }) => trajectory.turns },
  ],
});

const examples: Example[] = [1, 2, 3].map((n) => ({ id: `e${n}`, prompt: `n=${n}`, answer: n * 2 }));

/** Answers right on even rollout indices, wrong on odd ones, after one tool call. */
const agent = new ScriptedAgent((example, { rolloutIndex }) => [
  { toolCalls: [{ name: 'double', arguments: { n: Number(example.answer) / 2 } }] },
  { answer: rolloutIndex % 2 === 0 ? String(example.answer) : 'wrong' },
]);

describe('runEvaluation', () => {
  it('scores every rollout, emits whole groups with mean/std/advantage, and closes every tool session', async () => {
    const { factory, state } = fakeTools();
    const groups: ResultRecord[][] = [];
    const progress = await runEvaluation({
      environment,
      agent,
      tools: factory,
      examples,
      rolloutsPerExample: 2,
      concurrency: 4,
      abortSignal: new AbortController().signal,
      onGroup: (records) => groups.push(records),
    });
    expect(progress).toMatchObject({ done: 6, total: 6, errored: 0, scored: 6, rewardSum: 3 });
    expect(groups).toHaveLength(3);
    for (const group of groups) {
      expect(group.map((record) => record.rollout_index)).toEqual([0, 1]);
      expect(group.map((record) => record.reward)).toEqual([1, 0]);
      expect(group[0]!.group).toEqual({ mean: 0.5, std: 0.5, size: 2, advantage: 0.5 });
      expect(group[0]!.turns).toBe(2);
      expect(group[0]!.correct).toBe(1);
      expect(group[0]!.completion.map((message) => message.role)).toEqual(['assistant', 'tool', 'assistant']);
    }
    expect(state.closed).toBe(state.opened);
  });

  it('retries transient sandbox failures and records permanent ones as errored, never scored 0', async () => {
    const flaky = fakeTools({ failOpens: 1 });
    const groups: ResultRecord[][] = [];
    await runEvaluation({
      environment,
      agent,
      tools: flaky.factory,
      examples: examples.slice(0, 1),
      rolloutsPerExample: 1,
      concurrency: 1,
      abortSignal: new AbortController().signal,
      onGroup: (records) => groups.push(records),
    });
    expect(groups[0]![0]).toMatchObject({ reward: 1, attempts: 2, error: null });

    const broken = fakeTools({ failOpens: 1, transient: false });
    const brokenGroups: ResultRecord[][] = [];
    const progress = await runEvaluation({
      environment,
      agent,
      tools: broken.factory,
      examples: examples.slice(0, 2),
      rolloutsPerExample: 1,
      concurrency: 2,
      abortSignal: new AbortController().signal,
      onGroup: (records) => brokenGroups.push(records),
    });
    expect(progress.errored).toBe(1);
    const errored = brokenGroups.flat().find((record) => record.error);
    expect(errored).toMatchObject({ reward: null, error: { boundary: 'sandbox', code: 'SBX_ERR_UNSUPPORTED' } });
    expect(brokenGroups.flat().find((record) => !record.error)?.reward).toBe(1);
  });

  it('a cancel during the wait before a retry ends the rollout at once: no further attempt, nothing emitted', async () => {
    const controller = new AbortController();
    let openAttempts = 0;
    const failingOnce: ToolSessionFactory = {
      async open() {
        openAttempts++;
        // Fires once the scheduler is waiting to retry (everything before the wait is promise callbacks).
        setTimeout(() => controller.abort(), 0);
        throw new CorralError('POOL_ERR_CREATE_FAILED', 'no sandbox');
      },
    };
    const groups: ResultRecord[][] = [];
    const progress = await runEvaluation({
      environment,
      agent,
      tools: failingOnce,
      examples: examples.slice(0, 1),
      rolloutsPerExample: 1,
      concurrency: 1,
      abortSignal: controller.signal,
      onGroup: (records) => groups.push(records),
    });
    expect(openAttempts).toBe(1);
    expect(groups).toEqual([]);
    expect(progress.done).toBe(0);
  });

  it('cancellation stops new rollouts, emits no cancelled rollout, and releases every session', async () => {
    const { factory, state } = fakeTools();
    const controller = new AbortController();
    const slowAgent = new ScriptedAgent(async () => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return [{ answer: 'x' }];
    });
    const groups: ResultRecord[][] = [];
    const running = runEvaluation({
      environment,
      agent: slowAgent,
      tools: factory,
      examples,
      rolloutsPerExample: 4,
      concurrency: 2,
      abortSignal: controller.signal,
      onGroup: (records) => groups.push(records),
    });
    setTimeout(() => controller.abort(), 10);
    const progress = await running;
    expect(progress.done).toBeLessThan(12);
    expect(groups.flat().every((record) => record.error?.code !== 'RUNNER_ERR_CANCELLED')).toBe(true);
    expect(state.closed).toBe(state.opened);
  });
});

describe('ResultsWriter', () => {
  it('cuts a torn trailing line and reports completed keys for resume', () => {
    const directory = mkdtempSync(join(tmpdir(), 'corral-results-'));
    const writer = ResultsWriter.open(directory);
    writer.append([{ example_id: 'a', rollout_index: 0 } as ResultRecord, { example_id: 'a', rollout_index: 1 } as ResultRecord]);
    writer.close();
    appendFileSync(join(directory, 'results.jsonl'), '{"example_id":"b","rollo');
    const reopened = ResultsWriter.open(directory);
    expect([...reopened.completed]).toEqual(['a#0', 'a#1']);
    reopened.append([{ example_id: 'b', rollout_index: 0 } as ResultRecord]);
    reopened.close();
    const lines = readFileSync(join(directory, 'results.jsonl'), 'utf8').trim().split('\n');
    expect(lines.map((line) => JSON.parse(line).example_id)).toEqual(['a', 'a', 'b']);
  });
});

describe('runEvaluation over a stream', () => {
  it('reads an async-iterable dataset with bounded buffering, takes the first n, and skips what a resume already has', async () => {
    const { factory } = fakeTools();
    let pulled = 0;
    let running = 0;
    let maxAhead = 0;
    async function* stream(): AsyncGenerator<Example> {
      for (let n = 1; ; n++) {
        pulled++;
        // Examples read but not yet finished: at most `concurrency` running plus `concurrency` queued (+1: s3 is skipped, never finishes).
        maxAhead = Math.max(maxAhead, pulled - finished);
        yield { id: `s${n}`, prompt: `n=${n}`, answer: n * 2 };
      }
    }
    let finished = 0;
    const slowAgent = new ScriptedAgent(async (example) => {
      running++;
      await new Promise((resolve) => setImmediate(resolve));
      running--;
      finished++;
      return [{ answer: String(example.answer) }];
    });
    const records: ResultRecord[] = [];
    const progress = await runEvaluation({
      environment,
      agent: slowAgent,
      tools: factory,
      examples: stream(),
      limit: 10,
      rolloutsPerExample: 1,
      concurrency: 2,
      abortSignal: new AbortController().signal,
      existing: [
        erroredRecord(
          { example: { id: 's3', prompt: 'n=3' }, rollout_index: 0, environment: { name: 'double' } },
          { code: 'RUNNER_ERR_CANCELLED', message: 'done before' },
          1,
        ),
      ],
      onGroup: (group) => records.push(...group),
    });
    expect(records.map((record) => record.example_id).sort()).toEqual(['s1', 's10', 's2', 's4', 's5', 's6', 's7', 's8', 's9']);
    expect(progress).toMatchObject({ done: 9, total: 9, errored: 0 });
    expect(pulled).toBe(10);
    expect(maxAhead).toBeLessThanOrEqual(2 * 2 + 1);
    expect(running).toBe(0);
  });

  it('refuses, before any rollout, an environment with its own tools or hooks given only a bare tool session factory', async () => {
    const { factory, state } = fakeTools();
    const withSetup = defineEnvironment({ ...environment, name: 'hooked', setup: () => undefined });
    await expect(
      runEvaluation({
        environment: withSetup,
        agent,
        tools: factory,
        examples,
        rolloutsPerExample: 1,
        concurrency: 1,
        abortSignal: new AbortController().signal,
        onGroup: () => undefined,
      }),
    ).rejects.toThrow(/needs|need the rollout's sandbox/);
    expect(state.opened).toBe(0);
  });
});
