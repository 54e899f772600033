/**
 * `corral env check`'s battery over an environment whose replies come from a simulated user: the real simulatedUser
 * against a scripted model server on port 0, in process. The oracle and the floor converse with the user until it
 * writes its stop marker, and a user whose words change from one run to the next (it numbers its questions, as a
 * sampled model would vary them) is reported as a spread (warning), not as an error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenRollouts } from '../../src/environment-check/agent-runs.js';
import { referenceAnswerAgent } from '../../src/environment-check/check-agents.js';
import { runEnvironmentCheck } from '../../src/environment-check/run-environment-check.js';
import { defineEnvironment, type Example } from '../../src/runner/contract/environment.js';
import type { ToolSessionFactory } from '../../src/runner/contract/tool-session.js';
import { toolSessionRollouts } from '../../src/runner/scheduler/tool-session-rollouts.js';
import { simulatedUser } from '../../src/runner/users/simulated-user.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../../src/testing/scripted-model-server.js';

const noTools: ToolSessionFactory = {
  async open() {
    return { tools: [], call: async () => ({ text: 'no tools', isError: true }), close: async () => undefined };
  },
};
const openRollouts: OpenRollouts = async (environment) => ({ rollouts: toolSessionRollouts(environment, noTools), close: async () => undefined });

const examples: Example[] = [
  { id: 'order-0', prompt: 'Please confirm my order.', answer: 'confirmed', info: { user: 'order 17' } },
  { id: 'order-1', prompt: 'Please confirm my order.', answer: 'confirmed', info: { user: 'order 18' } },
];

let user: ScriptedModelServer;

beforeAll(async () => {
  // The user sees the agent's words as its 'user' turns: it asks once (numbering the question), then stops.
  user = await startScriptedModelServer((request, callIndex) => {
    const agentTurns = request.messages.filter((message) => message.role === 'user').length;
    return { kind: 'text', content: agentTurns >= 2 ? 'Thanks. ###STOP###' : `Question ${callIndex}: are you sure?` };
  });
});

afterAll(async () => {
  await user.close();
});

describe('env check with a simulated user', () => {
  it('converses with the user until it stops, and reports its changing words as a spread (warning)', async () => {
    const environment = defineEnvironment({
      name: 'order-desk',
      dataset: () => examples,
      respond: simulatedUser({ model: 'customer', baseUrl: user.baseURL, systemPrompt: 'You are a customer.' }),
      rubric: [{ name: 'confirmed', weight: 1, score: ({ trajectory, example }) => (trajectory.answer === example.answer ? 1 : 0) }],
      systemPrompt: 'Confirm orders.',
      maxTurns: 5,
    });
    const report = await runEnvironmentCheck({
      environment,
      examples,
      examplesAgain: examples,
      oracle: referenceAnswerAgent(),
      openRollouts,
      concurrency: 2,
      margin: 0.5,
      scoringRepeats: 2,
      abortSignal: new AbortController().signal,
    });
    expect(report.checks.filter((item) => !item.passed).map((item) => `${item.id}:${item.severity}`)).toEqual(['replies.deterministic:warning']);
    expect(report.counts.error).toBe(0);
    const replies = report.checks.find((item) => item.id === 'replies.deterministic')!;
    expect(replies.summary).toContain('simulated user');
    expect(replies.evidence).toMatchObject({ compared: 2, differing_count: 2 });
    expect((replies.evidence['differing'] as { simulated_user: boolean; rewards: number[] }[])[0]).toMatchObject({ simulated_user: true, rewards: [1, 1] });
    // The oracle's two runs: two user calls per rollout (a question, then stop). The floor's empty answers never reach
    // the user (its view drops empty turns), so it keeps asking until maxTurns: five calls per rollout.
    expect(user.requests).toHaveLength(2 * 2 * 2 + 2 * 5);
  });
});
