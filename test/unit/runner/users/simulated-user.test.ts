/**
 * simulatedUser and scriptedUser: a second model (a real scripted HTTP server) plays the user who knows the account
 * details; its calls are kept apart from the agent's on the record (user_calls, user_usage), never in the samples.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIAgent } from '../../../../src/runner/agents/openai/openai-agent.js';
import { ScriptedAgent } from '../../../../src/runner/agents/scripted/scripted-agent.js';
import { defineEnvironment, type Environment, type Example } from '../../../../src/runner/contract/environment.js';
import type { ToolSessionFactory } from '../../../../src/runner/contract/tool-session.js';
import { runEvaluation } from '../../../../src/runner/scheduler/run-evaluation.js';
import { buildSamples } from '../../../../src/runner/samples/build-samples.js';
import type { ChatMessage } from '../../../../src/runner/trajectory/messages.js';
import type { ResultRecord } from '../../../../src/runner/trajectory/result-record.js';
import { scriptedUser } from '../../../../src/runner/users/scripted-user.js';
import { simulatedUser } from '../../../../src/runner/users/simulated-user.js';
import { decodeText } from '../../../../src/testing/scripted-chat-template.js';
import { startScriptedModelServer, type ModelReply, type ScriptedModelServer } from '../../../../src/testing/scripted-model-server.js';

const example: Example = { id: 'c1', prompt: 'Please move me to the yearly plan.', answer: 'A-1234', info: { user: { account: 'A-1234', name: 'Ada' } } };

/** One tool, change_plan, that succeeds for any account. */
const planTools: ToolSessionFactory = {
  async open() {
    return {
      tools: [{ name: 'change_plan', description: 'changes the plan of an account', inputSchema: { type: 'object' } }],
      call: async (_name, args) => ({ text: `plan changed for ${String(args['account'])}`, isError: false }),
      close: async () => undefined,
    };
  },
};

function serviceEnvironment(respond: Environment['respond']): Environment {
  return defineEnvironment({
    name: 'plan-desk',
    dataset: () => [],
    systemPrompt: 'You are a support agent. Ask for the account number, then change the plan.',
    maxTurns: 8,
    respond,
    rubric: [
      {
        name: 'changed',
        weight: 1,
        score: ({ trajectory, example: given }) =>
          trajectory.completion.some(
            (message) => message.role === 'assistant' && message.tool_calls?.some((call) => call.function.arguments.includes(String(given.answer))),
          )
            ? 1
            : 0,
      },
    ],
  });
}

async function evaluate(environment: Environment, agent: OpenAIAgent | ScriptedAgent): Promise<ResultRecord> {
  const records: ResultRecord[] = [];
  await runEvaluation({
    environment,
    agent,
    tools: planTools,
    examples: [example],
    rolloutsPerExample: 1,
    concurrency: 1,
    maxAttempts: 1,
    abortSignal: new AbortController().signal,
    onGroup: (group) => records.push(...group),
  });
  return records[0]!;
}

const lastOf = (messages: readonly ChatMessage[], role: ChatMessage['role']) => [...messages].reverse().find((message) => message.role === role);

/** The agent model ('agent') and the user model ('customer') on one scripted server, told apart by the model name. */
function agentAndCustomer(request: { model: string; messages: ChatMessage[] }): ModelReply {
  if (request.model === 'customer') {
    const system = request.messages[0]!.content ?? '';
    const asked = lastOf(request.messages, 'user')?.content ?? '';
    if (asked.includes('account number')) return { kind: 'text', content: /"account": "([^"]+)"/.exec(system)?.[1] ?? 'I do not know' };
    return { kind: 'text', content: 'Thank you, that is all. ###STOP###' };
  }
  const answers = request.messages.filter((message) => message.role === 'assistant').length;
  if (answers === 0) return { kind: 'text', content: 'What is your account number?' };
  if (answers === 1) return { kind: 'tool-calls', toolCalls: [{ name: 'change_plan', arguments: { account: lastOf(request.messages, 'user')!.content } }] };
  return { kind: 'text', content: 'Your plan is now yearly.' };
}

describe('simulatedUser', () => {
  let server: ScriptedModelServer;
  beforeAll(async () => {
    server = await startScriptedModelServer((request) => agentAndCustomer(request as { model: string; messages: ChatMessage[] }), {
      template: 'keeps-history',
    });
  });
  afterAll(() => server.close());

  it('plays the user from the hidden info with its own model and sampling; its calls are on the record apart from the agent and never in samples', async () => {
    server.requests.length = 0;
    const respond = simulatedUser({ model: 'customer', baseUrl: server.baseURL, systemPrompt: 'You are a customer.', sampling: { temperature: 0.7 } });
    const agent = new OpenAIAgent({ model: 'agent', baseURL: server.baseURL, returnTokens: true });
    const record = await evaluate(serviceEnvironment(respond), agent);
    expect(record.error).toBeNull();
    expect(record.reward).toBe(1);
    expect(record.completion.map((message) => [message.role, message.content])).toEqual([
      ['assistant', 'What is your account number?'],
      ['user', 'A-1234'],
      ['assistant', null],
      ['tool', 'plan changed for A-1234'],
      ['assistant', 'Your plan is now yearly.'],
    ]);
    expect(record.events.filter((event) => event.type === 'environment-done')).toMatchObject([{ reason: 'user-stop' }]);
    expect(record.events.at(-1)).toMatchObject({ type: 'episode-end', reason: 'done' });

    const userRequests = server.requests.filter((request) => request.body.model === 'customer').map((request) => request.body);
    expect(userRequests).toHaveLength(2);
    // Its own sampling, the hidden info in its system prompt, and the conversation with roles swapped, no tool traffic.
    expect(userRequests[0]!.temperature).toBe(0.7);
    expect(userRequests[0]!.messages[0]!.content).toContain('"account": "A-1234"');
    expect(userRequests[0]!.messages.slice(1)).toEqual([
      { role: 'assistant', content: 'Please move me to the yearly plan.' },
      { role: 'user', content: 'What is your account number?' },
    ]);
    expect(userRequests[1]!.messages.slice(1)).toEqual([
      { role: 'assistant', content: 'Please move me to the yearly plan.' },
      { role: 'user', content: 'What is your account number?' },
      { role: 'assistant', content: 'A-1234' },
      { role: 'user', content: 'Your plan is now yearly.' },
    ]);
    const agentRequests = server.requests.filter((request) => request.body.model === 'agent');
    expect(agentRequests.every((request) => request.body['temperature'] === undefined)).toBe(true);

    // Separate accounting: the user's calls and usage, and the agent's usage and tokens without them.
    expect(record.user_calls!.map((call) => [call.model, call.content])).toEqual([
      ['customer', 'A-1234'],
      ['customer', 'Thank you, that is all. ###STOP###'],
    ]);
    const userPromptTokens = userRequests.reduce((sum, body) => sum + body.messages.length, 0);
    expect(record.user_usage).toEqual({ prompt_tokens: userPromptTokens, completion_tokens: 2 });
    expect(record.tokens).toHaveLength(3);
    expect(record.usage!.completion_tokens).toBe(record.tokens!.reduce((sum, turn) => sum + turn.completion_token_ids!.length, 0));
    const [sample] = buildSamples(record).samples;
    const sampled = sample!.completion_ids.filter((_, index) => sample!.completion_mask[index] === 1);
    expect(sampled).toEqual(record.tokens!.flatMap((turn) => turn.completion_token_ids!));
    expect(decodeText(sampled)).not.toContain('user\n');
    expect(decodeText(sample!.completion_ids.filter((_, index) => sample!.completion_mask[index] === 0))).toContain('user\nA-1234');
  });

  it("a failing user model errors the rollout as the environment's failure, never a 0", async () => {
    const failing = await startScriptedModelServer(() => ({ kind: 'http-error', status: 400, message: 'bad user request' }));
    try {
      const respond = simulatedUser({ model: 'customer', baseUrl: failing.baseURL, systemPrompt: 'You are a customer.', maxRetries: 0 });
      const record = await evaluate(serviceEnvironment(respond), new ScriptedAgent([{ answer: 'What is your account number?' }]));
      expect(record.reward).toBeNull();
      expect(record.error).toMatchObject({ boundary: 'environment', code: 'ENV_ERR_RESPOND_FAILED' });
      expect(record.error!.message).toContain('MODEL_ERR_HTTP');
    } finally {
      await failing.close();
    }
  });

  it('refuses options that cannot work when the environment is defined', () => {
    const base = { model: 'customer', baseUrl: 'http://127.0.0.1:1/v1', systemPrompt: 'You are a customer.' };
    for (const options of [
      { ...base, model: '' },
      { ...base, sampling: { messages: [] } },
      { ...base, baseUrl: 'not a url' },
      { ...base, stopMarkr: 'x' },
    ]) {
      expect(() => simulatedUser(options as Parameters<typeof simulatedUser>[0])).toThrow(expect.objectContaining({ code: 'CFG_ERR_INVALID' }));
    }
  });
});

describe('scriptedUser', () => {
  it('replies from a list in order and ends the conversation when the list runs out', async () => {
    const agent = new ScriptedAgent([{ answer: 'Account number?' }, { answer: 'Which plan?' }, { answer: 'Done.' }, { answer: 'never asked' }]);
    const record = await evaluate(serviceEnvironment(scriptedUser(['A-1234', 'yearly'])), agent);
    expect(record.completion.map((message) => message.content)).toEqual(['Account number?', 'A-1234', 'Which plan?', 'yearly', 'Done.']);
    expect(record.events.filter((event) => event.type === 'environment-done')).toMatchObject([{ turn: 3, reason: 'script-ended' }]);
    expect(record.user_calls).toBeUndefined();
  });

  it('replies from a function of the context, which may end the episode itself', async () => {
    const respond = scriptedUser(({ turn }) => (turn < 2 ? `reply ${turn}` : { done: true, reason: 'satisfied' }));
    const record = await evaluate(serviceEnvironment(respond), new ScriptedAgent([{ answer: 'one' }, { answer: 'two' }, { answer: 'three' }]));
    expect(record.completion.map((message) => message.content)).toEqual(['one', 'reply 1', 'two']);
    expect(record.events.filter((event) => event.type === 'environment-done')).toMatchObject([{ turn: 2, reason: 'satisfied' }]);
  });
});
