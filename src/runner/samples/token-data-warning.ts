/**
 * A run meant for training (the rollout API, `corral eval --samples`) that records no token ids is useless to a
 * trainer and looks fine until someone opens the file: say so once per run, at the first rollout that lacks them.
 */
import type { RolloutSamples } from './training-sample.js';

export const TOKENS_MISSING_WARNING =
  'a rollout recorded no token ids or logprobs, so it has no training sample (reason tokens_missing): the model server must return them (vLLM: logprobs and return_token_ids, which corral sends unless --return-tokens is off or --sampling overrides them; OpenAI does not return token ids)';

/** Returns a function to call per rollout build; it calls `warn` once, at the first build missing its tokens. */
export function tokenDataWarning(warn: (message: string) => void): (built: RolloutSamples) => void {
  let warned = false;
  return (built) => {
    if (warned || built.missing !== 'tokens_missing') return;
    warned = true;
    warn(TOKENS_MISSING_WARNING);
  };
}
