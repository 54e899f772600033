/**
 * The one function that turns a result record into training samples; the rollout API, `corral eval --samples`
 * and `corral export samples` all call it. A sample is the first turn's prompt, then every later token: a turn's
 * sampled completion (mask 1, its logprobs) and the tokens the template inserted before the next turn, i.e. the part
 * of turn k+1's prompt beyond turn k's prompt + completion (mask 0, logprob 0). A prompt that does not start with
 * the previous prompt + completion starts a new sample: splicing would train on tokens the model never saw.
 */
import type { TurnTokens } from '../trajectory/messages.js';
import type { ResultRecord } from '../trajectory/result-record.js';
import { readTurnTokens } from '../trajectory/turn-tokens.js';
import type { RolloutSamples, TrainingSample } from './training-sample.js';

type CompleteTurn = Required<Pick<TurnTokens, 'prompt_token_ids' | 'completion_token_ids' | 'completion_logprobs'>>;

export function buildSamples(record: ResultRecord): RolloutSamples {
  if (record.error || record.reward === null) return { samples: [], missing: 'errored', prefix_breaks: 0 };
  const turns = completeTurns(record);
  if (!turns) return { samples: [], missing: 'tokens_missing', prefix_breaks: 0 };
  const samples: TrainingSample[] = [];
  let current: TrainingSample | undefined;
  for (const turn of turns) {
    if (current && extendsSample(turn.prompt_token_ids, current)) {
      const inserted = current.prompt_ids.length + current.completion_ids.length;
      for (let index = inserted; index < turn.prompt_token_ids.length; index++) {
        current.completion_ids.push(turn.prompt_token_ids[index]!);
        current.completion_mask.push(0);
        current.completion_logprobs.push(0);
      }
    } else {
      current = {
        example_id: record.example_id,
        rollout_index: record.rollout_index,
        sample_index: samples.length,
        prompt_ids: [...turn.prompt_token_ids],
        completion_ids: [],
        completion_mask: [],
        completion_logprobs: [],
        reward: record.reward,
        advantage: record.group?.advantage ?? null,
      };
      samples.push(current);
    }
    for (let index = 0; index < turn.completion_token_ids.length; index++) {
      current.completion_ids.push(turn.completion_token_ids[index]!);
      current.completion_mask.push(1);
      current.completion_logprobs.push(turn.completion_logprobs[index]!);
    }
  }
  if (samples.length === 0) return { samples, missing: 'tokens_missing', prefix_breaks: 0 };
  return { samples, missing: null, prefix_breaks: samples.length - 1 };
}

/**
 * The trainable model calls of the rollout, each with prompt ids, completion ids and one logprob per completion id;
 * undefined when any lacks them (never a partial sample). Agents record one entry per trainable call, an entry
 * without ids when the server sent none (a CLI agent's calls outside its final conversation, e.g. a title request,
 * have no entry: they are never trained on). Entries are numbered 1..n; a gap is a call that recorded nothing.
 */
function completeTurns(record: ResultRecord): CompleteTurn[] | undefined {
  const tokens = readTurnTokens(record.tokens);
  if (!tokens || tokens.length === 0) return undefined;
  for (const [position, entry] of tokens.entries()) {
    if (entry.turn !== undefined && entry.turn !== position + 1) return undefined;
    if (!entry.prompt_token_ids || !entry.completion_token_ids || !entry.completion_logprobs) return undefined;
    if (entry.completion_logprobs.length !== entry.completion_token_ids.length) return undefined;
  }
  return tokens as CompleteTurn[];
}

/** The prompt starts with the sample's prompt + completion so far (compared in place, nothing concatenated). */
function extendsSample(prompt: readonly number[], sample: TrainingSample): boolean {
  const { prompt_ids: head, completion_ids: tail } = sample;
  if (prompt.length < head.length + tail.length) return false;
  for (let index = 0; index < head.length; index++) if (prompt[index] !== head[index]) return false;
  for (let index = 0; index < tail.length; index++) if (prompt[head.length + index] !== tail[index]) return false;
  return true;
}
