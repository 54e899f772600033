/**
 * The battery over environments that talk back, in process (runEnvironmentCheck over toolless rollouts): the floor
 * and the reference-answer oracle keep answering after each reply, the oracle plays a second time to compare the
 * replies, and an environment with roles is measured role by role (each role's oracle against the floor, the floor
 * against the oracles), with a rubric that pays the loser caught.
 */
import { describe, expect, it } from 'vitest';
import type { OpenRollouts } from '../../../src/environment-check/agent-runs.js';
import { referenceAnswerAgent, roleOracleNames } from '../../../src/environment-check/check-agents.js';
import type { EnvironmentCheckReport } from '../../../src/environment-check/check-report.js';
import { checkRepliesDeterministic } from '../../../src/environment-check/replies-determinism.js';
import { runEnvironmentCheck } from '../../../src/environment-check/run-environment-check.js';
import type { Agent } from '../../../src/runner/agents/agent.js';
import { defineEnvironment, type Environment, type Example } from '../../../src/runner/contract/environment.js';
import type { ToolSessionFactory } from '../../../src/runner/contract/tool-session.js';
import { toolSessionRollouts } from '../../../src/runner/scheduler/tool-session-rollouts.js';
import type { ResultRecord } from '../../../src/runner/trajectory/result-record.js';

const noTools: ToolSessionFactory = {
  async open() {
    return { tools: [], call: async () => ({ text: 'no tools', isError: true }), close: async () => undefined };
  },
};
const openRollouts: OpenRollouts = async (environment) => ({ rollouts: toolSessionRollouts(environment, noTools), close: async () => undefined });

const words: Example[] = [
  { id: 'word-0', prompt: 'Guess my word.', answer: 'crane' },
  { id: 'word-1', prompt: 'Guess my word.', answer: 'slate' },
];

function check(environment: Environment, examples: readonly Example[], oracle: Agent, roleOracles?: Record<string, Agent>): Promise<EnvironmentCheckReport> {
  return runEnvironmentCheck({
    environment,
    examples,
    examplesAgain: examples,
    oracle,
    ...(roleOracles ? { roleOracles } : {}),
    openRollouts,
    concurrency: 2,
    margin: 0.5,
    scoringRepeats: 2,
    abortSignal: new AbortController().signal,
  });
}

const failing = (report: EnvironmentCheckReport) => report.checks.filter((item) => !item.passed).map((item) => `${item.id}:${item.severity}`);
const result = (report: EnvironmentCheckReport, id: string) => report.checks.find((item) => item.id === id);

/** A guessing game in dialogue: respond ends the episode at the right word and says "not it" otherwise. */
function guessingGame(options: { confirmFirst?: boolean } = {}) {
  const heard: string[] = [];
  let replies = 0;
  const environment = defineEnvironment<{ solved: boolean; guesses: number }>({
    name: 'guessing-game',
    dataset: () => words,
    state: () => ({ solved: false, guesses: 0 }),
    respond({ messages, state, example }) {
      const guess = String(messages.at(-1)!.content ?? '').trim();
      heard.push(guess);
      state.guesses += 1;
      // confirmFirst: a referee that asks once before it accepts, numbering its questions across rollouts (not replayable).
      if (options.confirmFirst && state.guesses === 1) return { messages: `Question ${++replies}: are you sure?` };
      if (guess === example.answer) {
        state.solved = true;
        return { done: true, reason: 'solved' };
      }
      return { messages: `${guess || 'nothing'} is not it` };
    },
    rubric: [{ name: 'solved', weight: 1, score: ({ state }) => (state.solved ? 1 : 0) }],
    systemPrompt: 'Guess the word; reply with one word.',
    maxTurns: 4,
  });
  return { environment, heard };
}

describe('env check over an environment that talks back', () => {
  it('plays the reference answer and the empty floor as conversations: the floor answers empty every turn until maxTurns', async () => {
    const { environment, heard } = guessingGame();
    const report = await check(environment, words, referenceAnswerAgent());
    expect(failing(report)).toEqual([]);
    expect(result(report, 'oracle.max-reward')?.evidence).toMatchObject({ mean: 1, examples: 2 });
    expect(result(report, 'floor.below-oracle')?.evidence).toMatchObject({ floor_mean: 0, oracle_mean: 1 });
    expect(result(report, 'replies.deterministic')).toMatchObject({ passed: true, evidence: { compared: 2 } });
    // Two examples, four empty answers each (maxTurns), every one answered by respond; the oracle solved at once, twice.
    expect(heard.filter((guess) => guess === '')).toHaveLength(2 * 4);
    expect(heard.filter((guess) => guess !== '').sort()).toEqual(['crane', 'crane', 'slate', 'slate']);
  });

  it('reports replies that differ when the oracle plays the same moves again as an error (a programmatic respond)', async () => {
    const { environment } = guessingGame({ confirmFirst: true });
    const report = await check(environment, words, referenceAnswerAgent());
    expect(failing(report)).toEqual(['replies.deterministic:error']);
    const evidence = result(report, 'replies.deterministic')?.evidence as {
      differing: { simulated_user: boolean; rewards: number[]; reply: { index: number } }[];
    };
    expect(evidence.differing).toHaveLength(2);
    expect(evidence.differing[0]).toMatchObject({ simulated_user: false, rewards: [1, 1], reply: { index: 0 } });
  });

  it('leaves replies.deterministic out of the report of an environment that does not reply', async () => {
    const environment = defineEnvironment({
      name: 'one-answer',
      dataset: () => words,
      rubric: [{ name: 'exact', weight: 1, score: ({ trajectory, example }) => (trajectory.answer === example.answer ? 1 : 0) }],
      systemPrompt: 'Answer.',
    });
    const report = await check(environment, words, referenceAnswerAgent());
    expect(failing(report)).toEqual([]);
    expect(result(report, 'replies.deterministic')).toBeUndefined();
  });
});

describe('replies.deterministic over records', () => {
  const record = (example: string, reward: number, reply: string, userCalls: number): ResultRecord =>
    ({
      example_id: example,
      reward,
      error: null,
      completion: [
        { role: 'assistant', content: 'hello' },
        { role: 'user', content: reply },
      ],
      ...(userCalls > 0 ? { user_calls: Array.from({ length: userCalls }, () => ({ model: 'customer', content: reply })) } : {}),
    }) as unknown as ResultRecord;

  it('reports a simulated user that says other words as a warning with the spread, not an error', () => {
    const check = checkRepliesDeterministic([record('c-0', 1, 'my id is A-1', 1)], [record('c-0', 0, 'who are you?', 1)]);
    expect(check).toMatchObject({ id: 'replies.deterministic', passed: false, severity: 'warning' });
    expect(check.evidence).toMatchObject({
      differing: [{ example: 'c-0', rewards: [1, 0], simulated_user: true, reply: { first: 'my id is A-1', second: 'who are you?' } }],
    });
  });

  it('passes when the replies and the reward are the same, and skips rollouts that errored', () => {
    const errored = { ...record('c-1', 0, 'x', 0), error: { message: 'boom' } } as unknown as ResultRecord;
    const check = checkRepliesDeterministic([record('c-0', 1, 'same', 1), errored], [record('c-0', 1, 'same', 1), record('c-1', 1, 'y', 0)]);
    expect(check).toMatchObject({ passed: true, severity: 'info', evidence: { compared: 1 } });
  });
});

interface Pile {
  stones: number;
  winner: string | null;
}

/** Nim for two roles: take 1 to 3 stones; an illegal move (an empty answer) loses; whoever takes the last stone wins. */
function nim(won: (state: Pile, role: string) => boolean) {
  return defineEnvironment<Pile>({
    name: 'nim',
    roles: ['first', 'second'],
    dataset: () => [],
    state: ({ example }) => ({ stones: Number(example.answer), winner: null }),
    respond({ messages, state, role, nextRole }) {
      const took = Number(String(messages.at(-1)!.content ?? '').trim() || Number.NaN);
      if (!(took >= 1 && took <= 3 && took <= state.stones)) {
        state.winner = nextRole!;
        return { done: true, reason: 'illegal move' };
      }
      state.stones -= took;
      if (state.stones === 0) {
        state.winner = role!;
        return { done: true, reason: 'last stone' };
      }
      return { messages: `${state.stones} stones left.` };
    },
    rubric: [{ name: 'won', weight: 1, score: ({ state, role }) => (won(state, role!) ? 1 : 0) }],
    systemPrompt: 'Nim: reply with the number of stones you take.',
    maxTurns: 6,
  });
}

/** Plays the winning strategy from the last pile it heard of, for either role. */
const nimOracle = (name = 'nim-oracle'): Agent => ({
  name,
  model: name,
  takesEnvironmentReplies: true,
  async run(input) {
    const prompt = input.example.prompt;
    let heard = typeof prompt === 'string' ? prompt : String(prompt.at(-1)?.content ?? '');
    for (let turn = 0; turn < input.maxTurns; turn++) {
      const take = String(Number(/(\d+) stones/.exec(heard)?.[1] ?? 1) % 4 || 1);
      input.recorder.startTurn();
      input.recorder.message({ role: 'assistant', content: take });
      input.recorder.answer(take);
      const reply = await input.environmentReply?.();
      if (!reply || reply.done) return;
      heard = String(reply.messages.at(-1)?.content ?? '');
    }
  },
});

const piles: Example[] = [
  { id: 'pile-5', prompt: 'There are 5 stones.', answer: 5 },
  { id: 'pile-6', prompt: 'There are 6 stones.', answer: 6 },
];

describe('env check over an environment with roles', () => {
  it('measures each role: its oracle against the floor in the other role, and the floor against the oracle', async () => {
    const report = await check(
      nim((state, role) => state.winner === role),
      piles,
      nimOracle(),
    );
    expect(failing(report)).toEqual([]);
    expect(report.roles).toEqual([
      { role: 'first', oracle: 'nim-oracle' },
      { role: 'second', oracle: 'nim-oracle' },
    ]);
    expect(report.oracle).toBe('nim-oracle');
    const oracle = result(report, 'oracle.max-reward')?.evidence as { examples: number; mean: number };
    expect(oracle).toMatchObject({ examples: 4, mean: 1 });
    expect(result(report, 'floor.below-oracle')?.evidence).toMatchObject({ floor_mean: 0, oracle_mean: 1 });
    expect(result(report, 'replies.deterministic')).toMatchObject({ passed: true });
  });

  it('catches a rubric that pays the loser, naming the role of each miss', async () => {
    const report = await check(
      nim((state, role) => state.winner !== null && state.winner !== role),
      piles,
      nimOracle(),
    );
    expect(failing(report)).toEqual(expect.arrayContaining(['oracle.max-reward:error', 'floor.below-oracle:error']));
    const misses = (result(report, 'oracle.max-reward')?.evidence as { misses: { example: string }[] }).misses.map((miss) => miss.example).sort();
    expect(misses).toEqual(['pile-5 (first)', 'pile-5 (second)', 'pile-6 (first)', 'pile-6 (second)']);
  });

  it('plays the module agent named <oracle>-<role> in that role where it exports one, and says so in the report', async () => {
    expect(roleOracleNames('oracle', ['first', 'second'], ['oracle', 'oracle-second', 'floor'])).toEqual({ first: 'oracle', second: 'oracle-second' });
    const report = await check(
      nim((state, role) => state.winner === role),
      piles.slice(0, 1),
      nimOracle('oracle'),
      { second: nimOracle('oracle-second') },
    );
    expect(failing(report)).toEqual([]);
    expect(report.roles).toEqual([
      { role: 'first', oracle: 'oracle' },
      { role: 'second', oracle: 'oracle-second' },
    ]);
    expect(report.oracle).toBe('oracle, oracle-second');
  });
});
