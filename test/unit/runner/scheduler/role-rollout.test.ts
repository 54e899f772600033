/**
 * Several agents in one rollout (environment roles): a two-player game of Nim played by the openai agent against a
 * real scripted model server (with a chat template, so token ids are real), in self-play and with an agent per role.
 * The record keeps one trajectory and one reward per role, each role's training samples and group statistics.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIAgent } from '../../../../src/runner/agents/openai/openai-agent.js';
import { defineEnvironment, type Example } from '../../../../src/runner/contract/environment.js';
import type { EnvironmentReply, RespondContext } from '../../../../src/runner/contract/environment-reply.js';
import type { ToolSessionFactory } from '../../../../src/runner/contract/tool-session.js';
import { buildSamples } from '../../../../src/runner/samples/build-samples.js';
import type { TrainingSample } from '../../../../src/runner/samples/training-sample.js';
import { runEvaluation } from '../../../../src/runner/scheduler/run-evaluation.js';
import { runRollout } from '../../../../src/runner/scheduler/run-rollout.js';
import type { ChatMessage } from '../../../../src/runner/trajectory/messages.js';
import type { ResultRecord } from '../../../../src/runner/trajectory/result-record.js';
import { roleRecords } from '../../../../src/runner/trajectory/role-records.js';
import { decodeText } from '../../../../src/testing/scripted-chat-template.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../../../../src/testing/scripted-model-server.js';

interface Pile {
  stones: number;
  winner: string | null;
  respondedAs: string[];
}

const noTools: ToolSessionFactory = {
  async open() {
    return { tools: [], call: async () => ({ text: 'no tools', isError: true }), close: async () => undefined };
  },
};

/** Nim: take 1 to 3 stones in turn; whoever takes the last stone wins. */
function nim(options: { failOn?: string } = {}) {
  return defineEnvironment<Pile>({
    name: 'nim',
    dataset: () => [],
    systemPrompt: 'We play Nim: take 1, 2 or 3 stones; whoever takes the last stone wins. Reply with a number only.',
    maxTurns: 5,
    roles: ['first', 'second'],
    state: ({ example }) => ({ stones: Number(example.answer), winner: null, respondedAs: [] }),
    respond({ messages, state, role, nextRole }: RespondContext<Pile>): EnvironmentReply {
      if (role === options.failOn) throw new Error('the referee fell asleep');
      state.respondedAs.push(`${role}->${nextRole}`);
      const take = Math.min(state.stones, Math.max(1, Math.min(3, Number(messages.at(-1)!.content) || 1)));
      state.stones -= take;
      if (state.stones === 0) {
        state.winner = role!;
        return { done: true, reason: `${role} took the last stone` };
      }
      return { messages: `${role} took ${take}; ${state.stones} stones left.` };
    },
    rubric: [{ name: 'won', weight: 1, score: ({ state, role }) => (state.winner === role ? 1 : 0) }],
  });
}

const example: Example = { id: 'pile-5', prompt: 'There are 5 stones; you move first.', answer: 5 };

/** Stones left as the last user message says; the example's prompt before any move. */
const stonesLeft = (messages: readonly ChatMessage[]) => {
  const said = [...messages].reverse().find((message) => message.role === 'user')?.content ?? '';
  return Number(/(\d+) stones/.exec(said)?.[1] ?? 0);
};

describe('environments with roles (openai agents, scripted model server, real token ids)', () => {
  let server: ScriptedModelServer;
  beforeAll(async () => {
    // 'perfect' leaves a multiple of four; 'greedy' always takes three.
    server = await startScriptedModelServer(
      (request) =>
        request.model === 'stalling'
          ? { kind: 'text', content: '1', delayMs: 2_000 }
          : { kind: 'text', content: request.model === 'greedy' ? '3' : String(stonesLeft(request.messages) % 4 || 1) },
      { template: 'keeps-history' },
    );
  });
  afterAll(() => server.close());

  it('self-play: one rollout records two trajectories, two rewards, per-role samples and per-role group statistics', async () => {
    const records: ResultRecord[] = [];
    await runEvaluation({
      environment: nim(),
      agent: new OpenAIAgent({ model: 'perfect', baseURL: server.baseURL, returnTokens: true }),
      tools: noTools,
      examples: [example],
      rolloutsPerExample: 2,
      concurrency: 2,
      maxAttempts: 1,
      abortSignal: new AbortController().signal,
      onGroup: (group) => records.push(...group),
    });
    expect(records).toHaveLength(2);
    for (const record of records) {
      expect(record.error).toBeNull();
      expect(record.roles!.map((role) => [role.role, role.model, role.reward])).toEqual([
        ['first', 'perfect', 1],
        ['second', 'perfect', 0],
      ]);
      const [first, second] = record.roles!;
      // first takes 1 (4 left), second takes 1 (3 left), first takes 3 and wins.
      expect(first!.completion).toEqual([
        { role: 'assistant', content: '1' },
        { role: 'user', content: 'second took 1; 3 stones left.' },
        { role: 'assistant', content: '3' },
      ]);
      // The second role sees the game from its side: the first role's move is its first user message.
      expect(second!.prompt.at(-1)).toEqual({ role: 'user', content: 'first took 1; 4 stones left.' });
      expect(second!.completion).toEqual([{ role: 'assistant', content: '1' }]);
      for (const role of record.roles!) {
        expect(role.events.find((event) => event.type === 'environment-done')).toMatchObject({ reason: 'first took the last stone' });
        expect(role.events.at(-1)).toMatchObject({ type: 'episode-end', reason: 'done' });
      }
      // The top-level fields stay the first role's, for readers of single-agent records.
      expect(record.reward).toBe(1);
      expect(record.completion).toEqual(first!.completion);
      expect(record.roles!.map((role) => role.group)).toEqual([
        { mean: 1, std: 0, size: 2, advantage: 0 },
        { mean: 0, std: 0, size: 2, advantage: 0 },
      ]);
      const [firstSamples, secondSamples] = roleRecords(record).map((view) => buildSamples(view));
      expect(firstSamples!.samples).toHaveLength(1);
      expect(firstSamples!.samples[0]!.reward).toBe(1);
      expect(secondSamples!.samples[0]!.reward).toBe(0);
      // Only each role's own moves are trained on: the other role's move arrives as inserted tokens (mask 0).
      const trained = (sample: TrainingSample) => decodeText(sample.completion_ids.filter((_, index) => sample.completion_mask[index] === 1));
      expect(trained(firstSamples!.samples[0]!)).not.toContain('second took');
      expect(trained(firstSamples!.samples[0]!)).toContain('3');
      expect(decodeText(firstSamples!.samples[0]!.completion_ids)).toContain('second took 1; 3 stones left.');
      // What --samples, `corral export samples` and /v1/rollouts build from the record: every role's side, tagged.
      const all = buildSamples(record);
      expect(all.missing).toBeNull();
      expect(all.samples.map((sample) => [sample.role, sample.reward])).toEqual([
        ['first', 1],
        ['second', 0],
      ]);
      expect(all.samples[0]!.completion_ids).toEqual(firstSamples!.samples[0]!.completion_ids);
      expect(all.samples[1]!.completion_mask).toEqual(secondSamples!.samples[0]!.completion_mask);
    }
  });

  it('an agent per role: each role is played by its own model, and the rubric scores each role', async () => {
    const perfect = new OpenAIAgent({ model: 'perfect', baseURL: server.baseURL });
    const greedy = new OpenAIAgent({ model: 'greedy', baseURL: server.baseURL });
    const record = await runRollout({
      environment: nim(),
      agent: perfect,
      roleAgents: { first: greedy },
      tools: noTools,
      example,
      rolloutIndex: 0,
      abortSignal: new AbortController().signal,
    });
    // greedy takes 3 (2 left), perfect takes 2 and wins.
    expect(record.error).toBeNull();
    expect(record.roles!.map((role) => [role.role, role.model, role.reward])).toEqual([
      ['first', 'greedy', 0],
      ['second', 'perfect', 1],
    ]);
    expect(record.roles![1]!.completion).toEqual([{ role: 'assistant', content: '2' }]);
  });

  it('a respond that throws on the second role errors the whole rollout (environment), no role scored', async () => {
    const record = await runRollout({
      environment: nim({ failOn: 'second' }),
      agent: new OpenAIAgent({ model: 'perfect', baseURL: server.baseURL }),
      tools: noTools,
      example,
      rolloutIndex: 0,
      abortSignal: new AbortController().signal,
    });
    expect(record.error).toMatchObject({ boundary: 'environment', code: 'ENV_ERR_RESPOND_FAILED' });
    expect(record.reward).toBeNull();
    expect(record.roles!.map((role) => role.reward)).toEqual([null, null]);
    expect(record.roles!.map((role) => role.events.at(-1))).toMatchObject([
      { type: 'episode-end', reason: 'errored' },
      { type: 'episode-end', reason: 'errored' },
    ]);
  });

  it('the rollout deadline while one role waits for its turn errors the rollout (runner) instead of hanging', async () => {
    const record = await runRollout({
      environment: defineEnvironment({ ...nim(), limits: { toolTimeoutMs: 1_000, rolloutTimeoutMs: 300 } }),
      agent: new OpenAIAgent({ model: 'perfect', baseURL: server.baseURL, maxRetries: 0 }),
      roleAgents: { second: new OpenAIAgent({ model: 'stalling', baseURL: server.baseURL, maxRetries: 0 }) },
      tools: noTools,
      example,
      rolloutIndex: 0,
      abortSignal: new AbortController().signal,
    });
    expect(record.error).toMatchObject({ boundary: 'runner', code: 'RUNNER_ERR_TIMEOUT' });
    expect(record.roles!.map((role) => [role.reward, role.events.at(-1)])).toMatchObject([
      [null, { type: 'episode-end', reason: 'errored' }],
      [null, { type: 'episode-end', reason: 'errored' }],
    ]);
  });

  it('refuses roles without respond, fewer than two roles and a repeated role', () => {
    const base = { name: 'nim', dataset: () => [], systemPrompt: '', rubric: [{ name: 'r', weight: 1, score: () => 0 }] };
    expect(() => defineEnvironment({ ...base, roles: ['a', 'b'] })).toThrow(/roles needs respond/);
    expect(() => defineEnvironment({ ...base, roles: ['a'], respond: () => ({ done: true }) })).toThrow(/at least two roles/);
    expect(() => defineEnvironment({ ...base, roles: ['a', 'a'], respond: () => ({ done: true }) })).toThrow(/must differ/);
  });
});
