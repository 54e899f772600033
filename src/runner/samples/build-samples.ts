/**
 * The one function that turns a result record into training samples; the rollout API, `corral eval --samples`
 * and `corral export samples` all call it. A sample is the first turn's prompt, then every later token: a turn's
 * sampled completion (mask 1, its logprobs) and the tokens the template inserted before the next turn, i.e. the part
 * of turn k+1's prompt beyond turn k's prompt + completion (mask 0, logprob 0). A prompt that does not start with
 * the previous prompt + completion starts a new sample: splicing would train on tokens the model never saw.
 */
import type { TurnTokens } from '../trajectory/messages.js';
import type { ResultRecord } from '../trajectory/result-record.js';
import { roleRecords } from '../trajectory/role-records.js';
import { readTurnTokens } from '../trajectory/turn-tokens.js';
import type { RolloutSamples, TrainingSample } from './training-sample.js';

type CompleteTurn = Required<Pick<TurnTokens, 'prompt_token_ids' | 'completion_token_ids' | 'completion_logprobs'>>;

export function buildSamples(record: ResultRecord): RolloutSamples {
  if (!record.roles) return buildSideSamples(record);
  // Several agents in one rollout: each role trains on its own side (role-records.ts), its samples tagged with the
  // role; a role without token data leaves the whole rollout without samples (never half a game).
  const sides = roleRecords(record).map((view) => ({ role: String(view['role']), built: buildSideSamples(view) }));
  const missing = sides.find((side) => side.built.missing !== null)?.built.missing ?? null;
  if (missing) return { samples: [], missing, prefix_breaks: 0 };
  return {
    samples: sides.flatMap((side) => side.built.samples.map((sample) => ({ ...sample, role: side.role }))),
    missing: null,
    prefix_breaks: sides.reduce((sum, side) => sum + side.built.prefix_breaks, 0),
  };
}

/** One agent's samples: a single-agent record, or one role's view of a rollout with roles. */
function buildSideSamples(record: ResultRecord): RolloutSamples {
  if (record.error || record.reward === null) return { samples: [], missing: 'errored', prefix_breaks: 0 };
  // A replayed record's first turns were sampled by the source's policy: the sample starts after them, so they are
  // its prompt (lineage.replayed_turns, docs/rescore-replay.md). A record copied whole has no token of the new policy.
  const replayed = record.lineage?.replayed_turns?.length ?? 0;
  const turns = completeTurns(record, replayed);
  if (!turns) return { samples: [], missing: 'tokens_missing', prefix_breaks: 0 };
  // First pass: where each sample starts (a turn whose prompt does not extend the previous prompt + completion).
  const starts = [0];
  for (let index = 1; index < turns.length; index++) if (!extendsTurn(turns[index]!.prompt_token_ids, turns[index - 1]!)) starts.push(index);
  // Second pass: each sample's arrays allocated once at their final length and filled (no push per token).
  const samples = starts.map((first, sampleIndex) => fillSample(record, turns.slice(first, starts[sampleIndex + 1] ?? turns.length), sampleIndex));
  return { samples, missing: null, prefix_breaks: samples.length - 1 };
}

/** One sample from consecutive turns that extend one another. */
function fillSample(record: ResultRecord, turns: readonly CompleteTurn[], sampleIndex: number): TrainingSample {
  const head = turns[0]!.prompt_token_ids;
  const last = turns[turns.length - 1]!;
  const length = last.prompt_token_ids.length + last.completion_token_ids.length - head.length;
  const ids = new Array<number>(length);
  const mask = new Array<number>(length);
  const logprobs = new Array<number>(length);
  let offset = 0;
  for (const [position, turn] of turns.entries()) {
    // Inserted tokens: the part of this prompt beyond the previous turn's prompt + completion (the first turn has none).
    const insertedFrom = position === 0 ? head.length : turns[position - 1]!.prompt_token_ids.length + turns[position - 1]!.completion_token_ids.length;
    for (let index = insertedFrom; index < turn.prompt_token_ids.length; index++, offset++) {
      ids[offset] = turn.prompt_token_ids[index]!;
      mask[offset] = 0;
      logprobs[offset] = 0;
    }
    const sampled = turn.completion_token_ids;
    for (let index = 0; index < sampled.length; index++, offset++) {
      ids[offset] = sampled[index]!;
      mask[offset] = 1;
      logprobs[offset] = turn.completion_logprobs[index]!;
    }
  }
  return {
    example_id: record.example_id,
    rollout_index: record.rollout_index,
    sample_index: sampleIndex,
    prompt_ids: head.slice(),
    completion_ids: ids,
    completion_mask: mask,
    completion_logprobs: logprobs,
    reward: record.reward!,
    advantage: record.group?.advantage ?? null,
  };
}

/**
 * The trainable model calls of the rollout, each with prompt ids, completion ids and one logprob per completion id;
 * undefined when any lacks them (never a partial sample). Agents record one entry per trainable call, an entry
 * without ids when the server sent none (a CLI agent's calls outside its final conversation, e.g. a title request,
 * have no entry: they are never trained on). Entries are numbered 1..n; a gap is a call that recorded nothing.
 * `replayed`: how many leading turns were copied from another run (replay), never trained on here.
 */
function completeTurns(record: ResultRecord, replayed: number): CompleteTurn[] | undefined {
  const all = readTurnTokens(record.tokens);
  if (!all) return undefined;
  // A replayed record's copied turns are left out first (with or without token data); the rest are numbered from replayed + 1.
  const tokens = replayed === 0 ? all : all.filter((entry, position) => (entry.turn ?? position + 1) > replayed);
  if (tokens.length === 0) return undefined;
  for (const [position, entry] of tokens.entries()) {
    if (entry.turn !== undefined && entry.turn !== replayed + position + 1) return undefined;
    if (!entry.prompt_token_ids || !entry.completion_token_ids || !entry.completion_logprobs) return undefined;
    if (entry.completion_logprobs.length !== entry.completion_token_ids.length) return undefined;
  }
  return tokens as CompleteTurn[];
}

/** The prompt starts with the previous turn's prompt + completion (compared in place, nothing concatenated). */
function extendsTurn(prompt: readonly number[], previous: CompleteTurn): boolean {
  const { prompt_token_ids: head, completion_token_ids: tail } = previous;
  if (prompt.length < head.length + tail.length) return false;
  for (let index = 0; index < head.length; index++) if (prompt[index] !== head[index]) return false;
  for (let index = 0; index < tail.length; index++) if (prompt[head.length + index] !== tail[index]) return false;
  return true;
}
