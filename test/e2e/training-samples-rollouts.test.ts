/**
 * Training samples through POST /v1/rollouts with "samples": true, against the scripted model server tokenising
 * with its chat template: each streamed record carries `samples`, built by the same builder as `corral export
 * samples`; the summary line counts them. Token ids are asked for by default (return_tokens).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrainingSample } from '../../src/runner/samples/training-sample.js';
import type { ScriptedTemplate } from '../../src/testing/scripted-chat-template.js';
import { type ChatCompletionRequestBody, type ModelReply, startScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import { readNdjson, type RolloutServer, startRolloutServer } from './runner-rollout-server.js';

/** Turn 1 reads the page (thinking first when asked), turn 2 answers; 'lossy' answers lose their token ids. */
function wikiScript(options: { reasoning?: boolean } = {}) {
  return (body: ChatCompletionRequestBody): ModelReply => {
    const question = String(body.messages.find((message) => message.role === 'user')?.content ?? '');
    if (!body.messages.some((message) => message.role === 'tool'))
      return {
        kind: 'tool-calls',
        toolCalls: [{ name: 'read_section', arguments: { section_id: 'marrow_valley_railway:full' } }],
        ...(options.reasoning ? { reasoning: 'Read the page first.' } : {}),
      };
    return { kind: 'text', content: 'Harriet Lowell', ...(question.includes('lossy') ? { omitTokens: true } : {}) };
  };
}

const EXAMPLES = [
  { id: 'q', prompt: 'Who opened the Marrow Valley Railway?', answer: 'Harriet Lowell' },
  { id: 'lossy', prompt: 'lossy: who opened the Marrow Valley Railway?', answer: 'Harriet Lowell' },
];

describe('POST /v1/rollouts with samples: true', () => {
  let server: RolloutServer;
  beforeAll(async () => {
    server = await startRolloutServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  async function rollouts(template: ScriptedTemplate, script: ReturnType<typeof wikiScript>, extra: Record<string, unknown> = {}) {
    const model = await startScriptedModelServer(script, { template });
    try {
      const response = await server.post({
        env: 'wiki-search',
        examples: EXAMPLES,
        rollouts_per_example: 2,
        model: { base_url: model.baseURL, model: 'scripted' },
        samples: true,
        ...extra,
      });
      expect(response.status).toBe(200);
      const lines = (await readNdjson(response)).map((line) => line.value as Record<string, unknown>);
      return { records: lines.slice(0, -1), summary: lines.at(-1)!, requests: model.requests };
    } finally {
      await model.close();
    }
  }

  it('keeps-history: one sample per rollout with tokens, none for rollouts that lost them, counted in the summary', async () => {
    const { records, summary, requests } = await rollouts('keeps-history', wikiScript());
    expect(requests.every((request) => request.body['return_token_ids'] === true && request.body['logprobs'] === true)).toBe(true);
    for (const record of records) {
      const samples = record['samples'] as TrainingSample[];
      if (record['example_id'] === 'lossy') {
        expect(samples).toEqual([]);
        continue;
      }
      const tokens = record['tokens'] as { prompt_token_ids: number[]; completion_token_ids: number[] }[];
      expect(samples).toHaveLength(1);
      expect(samples[0]).toMatchObject({ example_id: 'q', rollout_index: record['rollout_index'], sample_index: 0, reward: 1, advantage: 0 });
      expect([...samples[0]!.prompt_ids, ...samples[0]!.completion_ids]).toEqual([...tokens[1]!.prompt_token_ids, ...tokens[1]!.completion_token_ids]);
      expect(samples[0]!.completion_mask.filter((bit) => bit === 1)).toHaveLength(
        tokens[0]!.completion_token_ids.length + tokens[1]!.completion_token_ids.length,
      );
    }
    expect(summary['samples']).toEqual({
      samples: 2,
      rollouts: 4,
      rollouts_with_samples: 2,
      rollouts_split: 0,
      without_samples: { errored: 0, tokens_missing: 2 },
    });
  }, 120_000);

  it('drops-think: every rollout split at its prefix break', async () => {
    const { records, summary } = await rollouts('drops-think', wikiScript({ reasoning: true }));
    const q = records.filter((record) => record['example_id'] === 'q');
    for (const record of q) expect((record['samples'] as TrainingSample[]).map((sample) => sample.sample_index)).toEqual([0, 1]);
    expect(summary['samples']).toMatchObject({ samples: 4, rollouts_split: 2 });
  }, 120_000);

  it('token_in against the template that drops <think>: one sample per rollout', async () => {
    const { records, summary, requests } = await rollouts('drops-think', wikiScript({ reasoning: true }), { token_in: true, examples: [EXAMPLES[0]] });
    expect(requests.some((request) => request.route === 'chat')).toBe(false);
    for (const record of records) expect((record['samples'] as TrainingSample[]).map((sample) => sample.sample_index)).toEqual([0]);
    expect(summary['samples']).toMatchObject({ samples: 2, rollouts_with_samples: 2, rollouts_split: 0 });
  }, 120_000);

  it('return_tokens: false asks for nothing: every rollout is tokens_missing, counted in the summary', async () => {
    const { records, summary, requests } = await rollouts('keeps-history', wikiScript(), { return_tokens: false, examples: [EXAMPLES[0]] });
    expect(requests.some((request) => 'return_token_ids' in request.body || 'logprobs' in request.body)).toBe(false);
    expect(records.every((record) => (record['samples'] as unknown[]).length === 0 && record['tokens'] === null)).toBe(true);
    expect(summary['samples']).toMatchObject({ samples: 0, without_samples: { errored: 0, tokens_missing: 2 } });
  }, 120_000);

  it('without samples: true the records carry no samples field', async () => {
    const { records } = await rollouts('keeps-history', wikiScript(), { samples: false });
    expect(records.every((record) => !('samples' in record))).toBe(true);
  }, 120_000);
});
