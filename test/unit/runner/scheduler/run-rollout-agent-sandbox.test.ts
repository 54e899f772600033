import { describe, expect, it } from 'vitest';
import type { Agent, AgentRunInput } from '../../../../src/runner/agents/agent.js';
import { defineEnvironment } from '../../../../src/runner/contract/environment.js';
import type { EnvironmentSandbox } from '../../../../src/runner/contract/rollout-context.js';
import type { ToolSession } from '../../../../src/runner/contract/tool-session.js';
import { createEnvironmentRollout } from '../../../../src/runner/scheduler/environment-rollout.js';
import { runRollout } from '../../../../src/runner/scheduler/run-rollout.js';

const environment = defineEnvironment({
  name: 'inside',
  toolsets: [],
  dataset: () => [],
  systemPrompt: '',
  rubric: [{ name: 'answered', weight: 1, score: ({ trajectory }) => (trajectory.answer === 'done' ? 1 : 0) }],
});
const example = { id: 'e1', prompt: 'p' };
const tools: ToolSession = { tools: [], call: async () => ({ text: '', isError: false }), close: async () => undefined };
const sandbox = { session: () => Promise.reject(new Error('not leased here')) } as unknown as EnvironmentSandbox;

/** An agent that keeps what it was given and answers. */
function recordingAgent(withNeeds: boolean): Agent & { seen: AgentRunInput[] } {
  const seen: AgentRunInput[] = [];
  return {
    name: 'inside-agent',
    model: 'm',
    seen,
    ...(withNeeds ? { sandboxNeeds: async () => ({ backend: 'docker' as const, socketsTarget: '/opt/corral/sockets' }) } : {}),
    async run(input) {
      seen.push(input);
      input.recorder.answer('done');
    },
  };
}

async function rolloutWith(agent: Agent) {
  let released = 0;
  const rollouts = {
    open: async () =>
      createEnvironmentRollout({
        environment,
        example,
        state: {},
        tools,
        sandbox,
        agentSocketsDirectory: '/tmp/agent-sockets-1',
        release: async () => void released++,
      }),
  };
  const record = await runRollout({ environment, agent, rollouts, example, rolloutIndex: 0, abortSignal: new AbortController().signal });
  return { record, released };
}

describe('runRollout and an agent that runs inside the rollout sandbox', () => {
  it('gives an agent with sandbox needs the rollout’s own sandbox and socket folder', async () => {
    const agent = recordingAgent(true);
    const { record, released } = await rolloutWith(agent);
    expect(record.error).toBeNull();
    expect(record.reward).toBe(1);
    expect(agent.seen[0]!.sandbox).toEqual({ session: sandbox, socketsDirectory: '/tmp/agent-sockets-1' });
    expect(agent.seen[0]!.sandbox!.session).toBe(sandbox);
    expect(released).toBe(1);
  });

  it('gives other agents no sandbox (they work through the tools)', async () => {
    const agent = recordingAgent(false);
    await rolloutWith(agent);
    expect(agent.seen[0]!.sandbox).toBeUndefined();
  });
});
