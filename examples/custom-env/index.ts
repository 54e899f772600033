/**
 * A custom environment, written the way a user writes one: a module that default-exports defineEnvironment({...}).
 * Run it with a model:   corral eval ./examples/custom-env/index.ts --model M --base-url http://host:8000/v1
 * or without one:        corral eval ./examples/custom-env/index.ts --agent reference
 */
import { defineEnvironment, type RubricFunction } from 'corral';
import { Guesser, ReferenceSolver } from './agents.js';
import { puzzleExamples } from './puzzles.js';

/** Reward: the final answer equals the gold answer, ignoring surrounding whitespace, case and a trailing period. */
const exactAnswer: RubricFunction = {
  name: 'exact_answer',
  weight: 1,
  score: ({ example, trajectory }) => (normalise(trajectory.answer ?? '') === normalise(String(example.answer)) ? 1 : 0),
};

/** Weight 0: recorded for analysis (did the agent compute, or guess?), not rewarded. */
const usedPython: RubricFunction = {
  name: 'used_python',
  weight: 0,
  score: ({ trajectory }) => (trajectory.toolCalls.some((call) => call.name === 'python' && !call.isError) ? 1 : 0),
};

const normalise = (text: string) => text.trim().replace(/\.$/, '').toLowerCase();

export default defineEnvironment({
  name: 'number-puzzles',
  description: 'Small arithmetic and string puzzles, answered with the help of a Python REPL.',
  toolsets: ['python'],
  dataset: () => puzzleExamples(),
  rubric: [exactAnswer, usedPython],
  systemPrompt: 'You have a persistent Python REPL (the python tool). Use it to compute answers exactly. Your final reply must be only the answer.',
  maxTurns: 6,
  limits: { toolTimeoutMs: 30_000, rolloutTimeoutMs: 120_000 },
});

/** Optional: agents that need no model, chosen with `--agent <name>` (they take precedence over built-ins of the same name). */
export const agents = {
  reference: () => new ReferenceSolver(),
  guess: () => new Guesser(),
};
