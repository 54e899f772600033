/**
 * Wordle: the environment's own `guess` tool keeps per-rollout state (the guesses so far, solved or not), and a
 * stop predicate ends the rollout as soon as the word is solved. Env args change the dataset:
 *
 *   corral eval ./examples/wordle/index.ts --agent solver --env-args '{"difficulty":"hard","words":4}'
 */
import { defineEnvironment, defineTool, stateSays, z, type ToolContext } from 'corral';
import { solverAgents } from './agents.js';
import { ALLOWED, WORDS, feedback } from './words.js';

interface WordleState {
  guesses: { word: string; marks: string }[];
  solved: boolean;
}

const argsSchema = z
  .object({
    difficulty: z.enum(['easy', 'hard']).default('easy').describe('which word list the secrets come from'),
    words: z.number().int().min(1).max(8).default(3).describe('how many secret words (examples)'),
  })
  .strict();

const guess = defineTool({
  name: 'guess',
  description:
    'Guess the secret five-letter word. Returns one mark per letter: G = right letter in the right place, Y = in the word but elsewhere, - = not in the word. Six guesses at most.',
  inputSchema: z.object({ word: z.string().describe('a five-letter lowercase word') }),
  outputSchema: z.object({ marks: z.string(), solved: z.boolean(), guessesLeft: z.number() }),
  annotations: { readOnlyHint: false, idempotentHint: false, destructiveHint: false },
  // Written outside defineEnvironment, the tool names the state it works on; defineEnvironment checks it is the environment's.
  execute({ word }, { state, example }: ToolContext<WordleState>) {
    const candidate = word.trim().toLowerCase();
    // Thrown errors reach the model as an isError result: it reads them and tries again.
    if (state.solved) throw new Error('already solved');
    if (state.guesses.length >= 6) throw new Error('no guesses left');
    if (!ALLOWED.has(candidate)) throw new Error(`"${candidate}" is not in the word list`);
    const marks = feedback(candidate, String(example.answer));
    state.guesses.push({ word: candidate, marks });
    state.solved = marks === 'GGGGG';
    const guessesLeft = 6 - state.guesses.length;
    return {
      text: state.solved ? `${marks} solved!` : `${marks} (${guessesLeft} guesses left)`,
      structuredContent: { marks, solved: state.solved, guessesLeft },
    };
  },
});

export default defineEnvironment({
  name: 'wordle',
  description: 'Guess a five-letter word with the guess tool; feedback per letter, six guesses.',
  tools: [guess],
  argsSchema,
  dataset: ({ envArgs }) =>
    WORDS[envArgs.difficulty].slice(0, envArgs.words).map((secret, index) => ({
      id: `${envArgs.difficulty}-${index}`,
      prompt: 'Find the secret five-letter word. Call guess with a word; use the feedback to choose the next guess.',
      answer: secret,
    })),
  state: (): WordleState => ({ guesses: [], solved: false }),
  // The agent needs no final message: the rollout ends when the word is solved.
  stopWhen: stateSays((state) => state.solved),
  rubric: [
    { name: 'solved', weight: 1, score: ({ state }) => (state.solved ? 1 : 0) },
    { name: 'guesses', weight: 0, score: ({ state }) => state.guesses.length },
  ],
  systemPrompt: 'You play Wordle with the guess tool. Think about which letters the feedback rules out before each guess.',
  maxTurns: 8,
});

export const agents = solverAgents;
