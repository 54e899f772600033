/**
 * A scripted "sampling" model for CI (`npm run examples best-of-n`), served over HTTP by corral/testing's scripted
 * model server with a chat template, so every reply carries token ids and logprobs as vLLM's do. It stands in for a
 * policy sampled at different seeds: the first two turns add 5 whatever the seed (the shared prefix), the third adds
 * a seed-dependent amount (the continuations the search ranks), the fourth answers with the total the tool reported.
 */
import type { ModelReply, ModelScript } from 'corral/testing';

/** What the third turn adds, by seed: from a total of 10 and a target of 20, seed 2 lands on it. */
export const THIRD_TURN_ADDS = [3, 6, 10, 13] as const;

export const bestOfNModels: ModelScript = (request): ModelReply => {
  const turn = request.messages.filter((message) => message.role === 'assistant').length + 1;
  const add = (n: number): ModelReply => ({ kind: 'tool-calls', toolCalls: [{ name: 'add', arguments: { n } }] });
  if (turn <= 2) return add(5);
  if (turn === 3) return add(THIRD_TURN_ADDS[Number(request['seed'] ?? 0) % THIRD_TURN_ADDS.length]!);
  const lastTool = [...request.messages].reverse().find((message) => message.role === 'tool');
  return { kind: 'text', content: typeof lastTool?.content === 'string' ? lastTool.content.trim() : '0' };
};
