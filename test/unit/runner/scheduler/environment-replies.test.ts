/**
 * Environments that answer turns (respond) in a rollout: the openai agent against a real scripted model server (with a
 * chat template, so token ids are real), the scripted agent, the end reasons, failures of respond, the refusal of
 * agents that cannot continue a conversation, and the training samples of such a rollout.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIAgent } from '../../../../src/runner/agents/openai/openai-agent.js';
import { ScriptedAgent } from '../../../../src/runner/agents/scripted/scripted-agent.js';
import { defineAgent } from '../../../../src/runner/contract/define-agent.js';
import { defineEnvironment, type Example } from '../../../../src/runner/contract/environment.js';
import type { EnvironmentReply, RespondContext } from '../../../../src/runner/contract/environment-reply.js';
import type { ToolSessionFactory } from '../../../../src/runner/contract/tool-session.js';
import { runEvaluation } from '../../../../src/runner/scheduler/run-evaluation.js';
import { buildSamples } from '../../../../src/runner/samples/build-samples.js';
import { stateSays } from '../../../../src/runner/stopping/stop-predicates.js';
import type { ChatMessage } from '../../../../src/runner/trajectory/messages.js';
import type { ResultRecord } from '../../../../src/runner/trajectory/result-record.js';
import { decodeText } from '../../../../src/testing/scripted-chat-template.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../../../../src/testing/scripted-model-server.js';

interface Game {
  guesses: number[];
  won: boolean;
}

/** No tools: the game is played in dialogue only. */
const noTools = (): ToolSessionFactory & { opened: number } => {
  const factory = {
    opened: 0,
    async open() {
      factory.opened++;
      return { tools: [], call: async () => ({ text: 'no tools', isError: true }), close: async () => undefined };
    },
  };
  return factory;
};

/** Guess the number: respond says higher or lower, and ends the episode when the guess is right. */
function guessingGame(overrides: Partial<Parameters<typeof defineEnvironment<Game>>[0]> = {}) {
  return defineEnvironment<Game>({
    name: 'guess-number',
    dataset: () => [],
    systemPrompt: 'Guess the number; answer with the number only.',
    maxTurns: 6,
    state: () => ({ guesses: [], won: false }),
    respond({ messages, state, example }: RespondContext<Game>): EnvironmentReply {
      const last = messages.at(-1)!;
      const guess = Number(last.content);
      state.guesses.push(guess);
      if (guess === example.answer) {
        state.won = true;
        return { done: true, reason: 'guessed' };
      }
      return { messages: guess < Number(example.answer) ? 'higher' : 'lower' };
    },
    rubric: [
      { name: 'won', weight: 1, score: ({ state }) => (state.won ? 1 : 0) },
      { name: 'guesses', weight: 0, score: ({ state }) => state.guesses.length },
    ],
    ...overrides,
  });
}

const example: Example = { id: 'n7', prompt: 'I think of a number from 1 to 10.', answer: 7 };

async function evaluate(options: {
  environment: ReturnType<typeof guessingGame>;
  agent: ConstructorParameters<typeof ScriptedAgent>[0] | OpenAIAgent;
  tools?: ToolSessionFactory;
}): Promise<ResultRecord> {
  const records: ResultRecord[] = [];
  await runEvaluation({
    environment: options.environment,
    agent: options.agent instanceof OpenAIAgent ? options.agent : new ScriptedAgent(options.agent),
    tools: options.tools ?? noTools(),
    examples: [example],
    rolloutsPerExample: 1,
    concurrency: 1,
    maxAttempts: 1,
    abortSignal: new AbortController().signal,
    onGroup: (group) => records.push(...group),
  });
  expect(records).toHaveLength(1);
  return records[0]!;
}

const lastUser = (messages: readonly ChatMessage[]) => [...messages].reverse().find((message) => message.role === 'user')?.content;

describe('environment replies with the openai agent (scripted model server, real token ids)', () => {
  let server: ScriptedModelServer;
  beforeAll(async () => {
    // A player that bisects on the environment's hints: 5, then 8 after "higher", then 7 after "lower".
    server = await startScriptedModelServer(
      (request) => {
        const hint = lastUser(request.messages);
        return { kind: 'text', content: hint === 'higher' ? '8' : hint === 'lower' ? '7' : '5' };
      },
      { template: 'keeps-history' },
    );
  });
  afterAll(() => server.close());

  for (const tokenIn of [false, true]) {
    it(`plays until respond says done, records the replies with their boundary, and samples train only on the model's tokens${tokenIn ? ' (token-in)' : ''}`, async () => {
      const agent = new OpenAIAgent({ model: 'player', baseURL: server.baseURL, returnTokens: true, ...(tokenIn ? { tokenIn: true } : {}) });
      const record = await evaluate({ environment: guessingGame(), agent });
      expect(record.error).toBeNull();
      expect(record.reward).toBe(1);
      expect(record.guesses).toBe(3);
      expect(record.turns).toBe(3);
      expect(record.completion).toEqual([
        { role: 'assistant', content: '5' },
        { role: 'user', content: 'higher' },
        { role: 'assistant', content: '8' },
        { role: 'user', content: 'lower' },
        { role: 'assistant', content: '7' },
      ]);
      const replies = record.events.filter((event) => event.type === 'environment-reply');
      expect(replies).toMatchObject([
        { turn: 1, messageIndex: 1, count: 1 },
        { turn: 2, messageIndex: 3, count: 1 },
      ]);
      expect(record.events.filter((event) => event.type === 'environment-done')).toMatchObject([{ turn: 3, reason: 'guessed' }]);
      expect(record.events.at(-1)).toMatchObject({ type: 'episode-end', reason: 'done' });
      expect(record.final_answer).toBe('7');

      const { samples, missing, prefix_breaks } = buildSamples(record);
      expect(missing).toBeNull();
      expect(prefix_breaks).toBe(0);
      expect(samples).toHaveLength(1);
      const sample = samples[0]!;
      const sampled = sample.completion_ids.filter((_, index) => sample.completion_mask[index] === 1);
      // Exactly the tokens the model sampled, in order, and nothing else is trained on.
      expect(sampled).toEqual(record.tokens!.flatMap((turn) => turn.completion_token_ids!));
      expect(decodeText(sampled)).toBe('587');
      const inserted = sample.completion_ids.filter((_, index) => sample.completion_mask[index] === 0);
      expect(decodeText(inserted)).toContain('user\nhigher');
      expect(decodeText(inserted)).toContain('user\nlower');
      expect(sample.completion_logprobs.filter((_, index) => sample.completion_mask[index] === 0).every((logprob) => logprob === 0)).toBe(true);
    });
  }
});

describe('environment replies in the rollout', () => {
  it('the scripted agent answers each reply with its next step', async () => {
    const record = await evaluate({ environment: guessingGame(), agent: [{ answer: '3' }, { answer: '9' }, { answer: '7' }, { answer: 'never' }] });
    expect(record.reward).toBe(1);
    expect(record.completion.map((message) => message.content)).toEqual(['3', 'higher', '9', 'lower', '7']);
    expect(record.events.at(-1)).toMatchObject({ type: 'episode-end', reason: 'done' });
  });

  it('ends at maxTurns when respond never says done, and the rollout is still scored', async () => {
    const record = await evaluate({ environment: guessingGame({ maxTurns: 2 }), agent: [{ answer: '1' }, { answer: '2' }, { answer: '7' }] });
    expect(record.error).toBeNull();
    expect(record.reward).toBe(0);
    expect(record.guesses).toBe(2);
    expect(record.events.at(-1)).toMatchObject({ type: 'episode-end', reason: 'max-turns' });
  });

  it('a stop predicate over the state respond changed ends the episode as stopped', async () => {
    const environment = guessingGame({ stopWhen: stateSays((state: Game) => state.guesses.length >= 2) });
    const record = await evaluate({ environment, agent: [{ answer: '1' }, { answer: '2' }, { answer: '7' }] });
    expect(record.turns).toBe(2);
    expect(record.events.at(-1)).toMatchObject({ type: 'episode-end', reason: 'stopped' });
  });

  it('a respond that throws errors the rollout as an environment failure, never a 0', async () => {
    const environment = guessingGame({
      respond: () => {
        throw new Error('the game server is down');
      },
    });
    const record = await evaluate({ environment, agent: [{ answer: '5' }] });
    expect(record.reward).toBeNull();
    expect(record.error).toMatchObject({ boundary: 'environment', code: 'ENV_ERR_RESPOND_FAILED', transient: false });
    expect(record.error!.message).toContain('the game server is down');
    expect(record.events.at(-1)).toMatchObject({ type: 'episode-end', reason: 'errored' });
  });

  it('a respond that returns an assistant message (or nothing) is refused as an environment failure', async () => {
    for (const reply of [{ messages: [{ role: 'assistant', content: 'I win' }] }, undefined, { messages: [] }]) {
      const environment = guessingGame({ respond: () => reply as unknown as EnvironmentReply });
      const record = await evaluate({ environment, agent: [{ answer: '5' }] });
      expect(record.reward).toBeNull();
      expect(record.error).toMatchObject({ boundary: 'environment', code: 'ENV_ERR_RESPOND_FAILED' });
    }
  });

  it('refuses an agent that cannot continue after a reply before the first rollout', async () => {
    const tools = noTools();
    const modelFree = defineAgent({ name: 'reference', run: (context) => context.answer('7') })();
    await expect(
      runEvaluation({
        environment: guessingGame(),
        agent: modelFree,
        tools,
        examples: [example],
        rolloutsPerExample: 1,
        concurrency: 1,
        abortSignal: new AbortController().signal,
        onGroup: () => undefined,
      }),
    ).rejects.toMatchObject({ code: 'ENV_ERR_REPLIES_UNSUPPORTED' });
    expect(tools.opened).toBe(0);
  });
});
