/**
 * Wordle played in dialogue: no tools at all. The environment's `respond` reads each guess from the model's reply,
 * answers with the marks as the next user message, and ends the episode when the word is solved or the guesses run
 * out. The reward comes from the game state respond kept. The word list and the marks are the wordle example's
 * (the same game played through a tool there).
 *
 *   corral eval ./examples/word-game/index.ts --model Qwen/Qwen3-8B --base-url http://localhost:8000/v1
 */
import { defineEnvironment, type ChatMessage, type EnvironmentReply, type RespondContext } from 'corral';
import { ALLOWED, WORDS, feedback } from '../wordle/words.js';

interface Game {
  guesses: { word: string; marks: string }[];
  solved: boolean;
}

const MAX_GUESSES = 6;

/** The last thing the model said, without a <think> block. */
function lastAnswer(messages: readonly ChatMessage[]): string {
  const last = [...messages].reverse().find((message) => message.role === 'assistant');
  return (last?.content ?? '').replace(/<think>[\s\S]*?<\/think>/g, '').trim();
}

function play({ messages, state, example }: RespondContext<Game>): EnvironmentReply {
  const said = lastAnswer(messages);
  // The last five-letter word of the reply is the guess; anything else costs a turn but no guess.
  const word = said
    .toLowerCase()
    .match(/\b[a-z]{5}\b/g)
    ?.at(-1);
  if (!word || !ALLOWED.has(word)) return { messages: `I do not know "${said.slice(0, 40)}" as a word; reply with one five-letter word.` };
  const marks = feedback(word, String(example.answer));
  state.guesses.push({ word, marks });
  if (marks === 'GGGGG') {
    state.solved = true;
    return { done: true, reason: 'solved' };
  }
  if (state.guesses.length >= MAX_GUESSES) return { done: true, reason: 'out of guesses' };
  return { messages: `${word}: ${marks} (${MAX_GUESSES - state.guesses.length} guesses left)` };
}

export default defineEnvironment({
  name: 'word-game',
  description: 'Wordle in dialogue, no tools: the environment answers each guess with per-letter marks.',
  dataset: () =>
    WORDS.easy.slice(0, 4).map((secret, index) => ({
      id: `word-${index}`,
      prompt: 'I am thinking of a five-letter word. Guess it: reply with one word.',
      answer: secret,
    })),
  state: (): Game => ({ guesses: [], solved: false }),
  respond: play,
  rubric: [
    { name: 'solved', weight: 1, score: ({ state }) => (state.solved ? 1 : 0) },
    { name: 'guesses', weight: 0, score: ({ state }) => state.guesses.length },
  ],
  systemPrompt:
    'We play Wordle in conversation. After each guess I answer with one mark per letter: G = right letter in the right place, Y = in the word elsewhere, - = not in the word. Reply with your next guess only.',
  // Six guesses, plus a few turns for replies that were not a word.
  maxTurns: 10,
});
