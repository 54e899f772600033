import { describe, expect, it } from 'vitest';
import { buildSamples } from '../../../../src/runner/samples/build-samples.js';
import type { TurnTokens } from '../../../../src/runner/trajectory/messages.js';
import type { ResultRecord } from '../../../../src/runner/trajectory/result-record.js';

function record(tokens: TurnTokens[] | null, overrides: Partial<ResultRecord> = {}): ResultRecord {
  return {
    version: 1,
    example_id: 'q1',
    rollout_index: 2,
    task: 't',
    prompt: [{ role: 'user', content: 'hi' }],
    completion: [],
    answer: null,
    final_answer: null,
    info: {},
    reward: 1,
    metrics: {},
    group: { mean: 0.25, std: 0.5, size: 4, advantage: 0.75 },
    error: null,
    turns: tokens?.length ?? 0,
    timing: { generation_ms: 1, scoring_ms: 1, total_ms: 2, tool_calls: [] },
    events: [],
    tokens,
    truncated: false,
    usage: null,
    attempts: 1,
    ...overrides,
  };
}

describe('buildSamples', () => {
  it('a template that keeps history: one sample, completions masked 1 with their logprobs, inserted tokens masked 0', () => {
    const built = buildSamples(
      record([
        { turn: 1, prompt_token_ids: [1, 2, 3], completion_token_ids: [10, 11], completion_logprobs: [-0.5, -0.25] },
        { turn: 2, prompt_token_ids: [1, 2, 3, 10, 11, 20, 21], completion_token_ids: [12], completion_logprobs: [-1] },
        { turn: 3, prompt_token_ids: [1, 2, 3, 10, 11, 20, 21, 12, 22], completion_token_ids: [13, 14], completion_logprobs: [-2, -3] },
      ]),
    );
    expect(built).toEqual({
      missing: null,
      prefix_breaks: 0,
      samples: [
        {
          example_id: 'q1',
          rollout_index: 2,
          sample_index: 0,
          prompt_ids: [1, 2, 3],
          completion_ids: [10, 11, 20, 21, 12, 22, 13, 14],
          completion_mask: [1, 1, 0, 0, 1, 0, 1, 1],
          completion_logprobs: [-0.5, -0.25, 0, 0, -1, 0, -2, -3],
          reward: 1,
          advantage: 0.75,
        },
      ],
    });
  });

  it('a prompt that does not extend the previous prompt + completion starts a new sample (never spliced)', () => {
    // Turn 2's template dropped the <think> tokens (10) of turn 1's completion from the history.
    const built = buildSamples(
      record([
        { turn: 1, prompt_token_ids: [1, 2], completion_token_ids: [10, 11], completion_logprobs: [-0.5, -0.25] },
        { turn: 2, prompt_token_ids: [1, 2, 11, 20], completion_token_ids: [10, 12], completion_logprobs: [-1, -2] },
        { turn: 3, prompt_token_ids: [1, 2, 11, 20, 10, 12, 21], completion_token_ids: [13], completion_logprobs: [-3] },
      ]),
    );
    expect(built.missing).toBeNull();
    expect(built.prefix_breaks).toBe(1);
    expect(
      built.samples.map(({ sample_index, prompt_ids, completion_ids, completion_mask, completion_logprobs }) => ({
        sample_index,
        prompt_ids,
        completion_ids,
        completion_mask,
        completion_logprobs,
      })),
    ).toEqual([
      { sample_index: 0, prompt_ids: [1, 2], completion_ids: [10, 11], completion_mask: [1, 1], completion_logprobs: [-0.5, -0.25] },
      { sample_index: 1, prompt_ids: [1, 2, 11, 20], completion_ids: [10, 12, 21, 13], completion_mask: [1, 1, 0, 1], completion_logprobs: [-1, -2, 0, -3] },
    ]);
  });

  it('a rollout with a model call that came back without token ids gets no sample, never a partial one', () => {
    const built = buildSamples(record([{ turn: 1, prompt_token_ids: [1], completion_token_ids: [2], completion_logprobs: [-1] }, { turn: 2 }]));
    expect(built).toEqual({ samples: [], missing: 'tokens_missing', prefix_breaks: 0 });
    expect(buildSamples(record(null, { turns: 1 })).missing).toBe('tokens_missing');
    // A gap in the numbering is a call that recorded nothing (records written before every turn got an entry).
    const gap = record([
      { turn: 1, prompt_token_ids: [1], completion_token_ids: [2], completion_logprobs: [-1] },
      { turn: 3, prompt_token_ids: [1, 2, 3], completion_token_ids: [4], completion_logprobs: [-1] },
    ]);
    expect(buildSamples(gap).missing).toBe('tokens_missing');
    // Logprobs are part of a sample: ids without them (or of another length) are missing tokens too.
    expect(buildSamples(record([{ turn: 1, prompt_token_ids: [1], completion_token_ids: [2, 3], completion_logprobs: [-1] }])).missing).toBe('tokens_missing');
  });

  it('an errored rollout gets no sample', () => {
    const errored = record([{ turn: 1, prompt_token_ids: [1], completion_token_ids: [2], completion_logprobs: [-1] }], {
      reward: null,
      group: { mean: 0.5, std: 0, size: 1, advantage: null },
      error: { boundary: 'sandbox', code: 'SBX_ERR_KILLED', message: 'killed', transient: true },
    });
    expect(buildSamples(errored)).toEqual({ samples: [], missing: 'errored', prefix_breaks: 0 });
  });

  it('reads records written with the old camelCase token fields', () => {
    const old = record(null, { tokens: [{ turn: 1, promptTokenIds: [5], completionTokenIds: [6], completionLogprobs: [-0.5] }] as unknown as TurnTokens[] });
    expect(buildSamples(old).samples[0]).toMatchObject({ prompt_ids: [5], completion_ids: [6], completion_mask: [1], completion_logprobs: [-0.5] });
  });

  it('a replayed record never trains on its copied turns: the sample starts at the first turn the new policy sampled', () => {
    const lineage = { kind: 'replay' as const, source_run: '/runs/a', source_record: 'q1#2', from_turn: 2, replayed_turns: [1] };
    const turns: TurnTokens[] = [
      { turn: 1, prompt_token_ids: [1, 2, 3], completion_token_ids: [10, 11], completion_logprobs: [-0.5, -0.25] },
      { turn: 2, prompt_token_ids: [1, 2, 3, 10, 11, 20, 21], completion_token_ids: [12], completion_logprobs: [-1] },
      { turn: 3, prompt_token_ids: [1, 2, 3, 10, 11, 20, 21, 12, 22], completion_token_ids: [13, 14], completion_logprobs: [-2, -3] },
    ];
    expect(buildSamples(record(turns, { lineage })).samples).toEqual([
      expect.objectContaining({
        prompt_ids: [1, 2, 3, 10, 11, 20, 21],
        completion_ids: [12, 22, 13, 14],
        completion_mask: [1, 0, 1, 1],
        completion_logprobs: [-1, 0, -2, -3],
      }),
    ]);
    // The source's turn 1 had no token data: the new policy's turns still make a sample.
    expect(buildSamples(record(turns.slice(1), { lineage, turns: 3 })).samples[0]).toMatchObject({ prompt_ids: [1, 2, 3, 10, 11, 20, 21] });
    // Copied whole (the source ended before turn K): nothing of the new policy to train on.
    const copied = { ...lineage, replayed_turns: [1, 2, 3], copied: true };
    expect(buildSamples(record(turns, { lineage: copied }))).toEqual({ samples: [], missing: 'tokens_missing', prefix_breaks: 0 });
  });
});
