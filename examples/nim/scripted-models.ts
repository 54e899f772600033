/**
 * A scripted model for CI (`npm run examples nim`), served over HTTP by corral/testing's scripted model server so
 * `corral eval --model player` runs the real openai agent for both roles: it plays the winning strategy, leaving a
 * multiple of four stones when it can (and taking one when it cannot). `--model-for first=beginner` gives the first
 * role a model that always takes one stone, and it loses.
 */
import type { ModelScript } from 'corral/testing';

export const nimModels: ModelScript = (request) => {
  if (request.model === 'beginner') return { kind: 'text', content: '1' };
  const lastUser = [...request.messages].reverse().find((message) => message.role === 'user');
  const stones = Number(/(\d+) stones/.exec(typeof lastUser?.content === 'string' ? lastUser.content : '')?.[1] ?? 1);
  return { kind: 'text', content: String(stones % 4 || 1) };
};
