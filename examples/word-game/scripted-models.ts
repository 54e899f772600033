/**
 * Scripted models for CI (`npm run examples word-game`), served over HTTP by corral/testing's scripted model server
 * so `corral eval --model player --base-url ...` runs the real openai agent: it guesses the first word consistent
 * with every mark the environment sent so far.
 */
import type { ModelReply, ModelScript } from 'corral/testing';
import { ALLOWED, feedback } from '../wordle/words.js';

const text = (content: string): ModelReply => ({ kind: 'text', content });

export const wordGameModels: ModelScript = (request) => {
  const seen = request.messages.flatMap((message) => {
    const match = message.role === 'user' ? /^([a-z]{5}): ([GY-]{5})/.exec(message.content) : null;
    return match ? [{ word: match[1]!, marks: match[2]! }] : [];
  });
  const candidate = [...ALLOWED].find((word) => seen.every((guess) => feedback(guess.word, word) === guess.marks));
  return text(candidate ?? 'crane');
};
