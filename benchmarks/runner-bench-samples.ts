/**
 * The cost of building training samples (runner/samples/build-samples.ts) per rollout: a synthetic 10-turn
 * rollout of ~8k tokens whose prompts extend one another (the worst case for the prefix check: every turn compares
 * the whole history). The peer, measured in the same run, is JSON.stringify of the same record, which every
 * rollout pays anyway when results.jsonl is written. No model, no sandbox: pure CPU.
 */
import { buildSamples } from '../src/runner/samples/build-samples.js';
import type { TurnTokens } from '../src/runner/trajectory/messages.js';
import type { ResultRecord } from '../src/runner/trajectory/result-record.js';
import { type Figure, round } from './figure.js';
import { median } from './measure.js';

const TURNS = 10;
const PROMPT_TOKENS = 1_000;
/** Per turn: 400 sampled tokens and 300 inserted (tool result, template) tokens: 1000 + 10 x 700 = 8000 in all. */
const COMPLETION_TOKENS = 400;
const INSERTED_TOKENS = 300;

export function syntheticTrainingRecord(): ResultRecord {
  const tokens: TurnTokens[] = [];
  let history = Array.from({ length: PROMPT_TOKENS }, (_, index) => (index * 31) % 50_000);
  for (let turn = 1; turn <= TURNS; turn++) {
    const completion = Array.from({ length: COMPLETION_TOKENS }, (_, index) => (turn * 1_000 + index) % 50_000);
    tokens.push({ turn, prompt_token_ids: history, completion_token_ids: completion, completion_logprobs: completion.map((id) => -((id % 97) + 1) / 100) });
    const inserted = Array.from({ length: INSERTED_TOKENS }, (_, index) => (turn * 7_000 + index) % 50_000);
    history = [...history, ...completion, ...inserted];
  }
  return {
    version: 1,
    example_id: 'bench',
    rollout_index: 0,
    task: 'bench',
    prompt: [{ role: 'user', content: 'q' }],
    completion: [],
    answer: null,
    final_answer: null,
    info: {},
    reward: 1,
    metrics: {},
    group: { mean: 0.5, std: 0.5, size: 2, advantage: 0.5 },
    error: null,
    turns: TURNS,
    timing: { generation_ms: 0, scoring_ms: 0, total_ms: 0, tool_calls: [] },
    events: [],
    tokens,
    truncated: false,
    usage: null,
    attempts: 1,
  };
}

/** Median ms per call over `repeats` rounds of `iterations` calls, after a warm-up round. */
function msPerCall(task: () => unknown, iterations: number, repeats: number): number {
  for (let index = 0; index < iterations; index++) task();
  const rounds: number[] = [];
  for (let round = 0; round < repeats; round++) {
    const startedAt = performance.now();
    for (let index = 0; index < iterations; index++) task();
    rounds.push((performance.now() - startedAt) / iterations);
  }
  return median(rounds);
}

export function sampleBuildFigures(options: { iterations?: number; repeats?: number; log: (line: string) => void }): Figure[] {
  const record = syntheticTrainingRecord();
  const built = buildSamples(record);
  const tokens = built.samples[0]!.prompt_ids.length + built.samples[0]!.completion_ids.length;
  options.log(`samples: a ${TURNS}-turn rollout of ${tokens} tokens, ${built.samples.length} sample`);
  const iterations = options.iterations ?? 500;
  const repeats = options.repeats ?? 5;
  const buildMs = msPerCall(() => buildSamples(record), iterations, repeats);
  const stringifyMs = msPerCall(() => JSON.stringify(record), iterations, repeats);
  return [
    {
      name: 'runner.samples.build_ms_per_rollout',
      value: round(buildMs, 4),
      unit: 'ms',
      peer: 'JSON.stringify of the record',
      peerValue: round(stringifyMs, 4),
      ratio: round(stringifyMs / buildMs, 2),
      target: '<= 0.2',
    },
  ];
}
