/**
 * The arithmetic and parsing behind trustworthy runs: pass@k (unbiased estimator), group statistics (null for an
 * all-errored group, restated over whole groups after a resume), reasoning kept out of the final answer, the
 * chat-completion fields that feed truncation and token totals, and a throwing rubric's own error code.
 */
import { describe, expect, it } from 'vitest';
import { passAtK, passAtKByK, reportedKs } from '../../../../src/runner/run/pass-at-k.js';
import { formatSummary, summarise, summaryMetadata } from '../../../../src/runner/run/run-summary.js';
import { answerWithoutReasoning } from '../../../../src/runner/agents/openai/reasoning-text.js';
import { readChatCompletion } from '../../../../src/runner/agents/openai/chat-completion-response.js';
import { groupStats, restateGroupStats } from '../../../../src/runner/scheduler/group-stats.js';
import { describeFailure } from '../../../../src/runner/scheduler/rollout-error.js';
import type { ResultRecord } from '../../../../src/runner/trajectory/result-record.js';

const record = (exampleId: string, rolloutIndex: number, reward: number | null, extra: Partial<ResultRecord> = {}): ResultRecord =>
  ({
    example_id: exampleId,
    rollout_index: rolloutIndex,
    reward,
    error: reward === null ? { boundary: 'model', code: 'MODEL_ERR_SERVER', message: 'HTTP 500 from the endpoint', transient: true } : null,
    metrics: {},
    group: null,
    truncated: false,
    usage: null,
    ...extra,
  }) as ResultRecord;

describe('pass@k', () => {
  it('is 1 - C(n-c, k)/C(n, k) per example, averaged over examples', () => {
    expect(passAtK(4, 1, 1)).toBeCloseTo(0.25, 12);
    expect(passAtK(4, 1, 2)).toBeCloseTo(1 - 3 / 6, 12);
    expect(passAtK(4, 0, 4)).toBe(0);
    expect(passAtK(4, 2, 3)).toBe(1);
    expect(reportedKs(5)).toEqual([1, 2, 4, 5]);
    const records = [
      record('a', 0, 1),
      record('a', 1, 0),
      record('a', 2, 0),
      record('a', 3, 0),
      record('b', 0, 1),
      record('b', 1, 1),
      record('b', 2, 1),
      record('b', 3, 1),
    ];
    expect(passAtKByK(records, 4)).toEqual({ '1': (0.25 + 1) / 2, '2': (0.5 + 1) / 2, '4': 1 });
    expect(passAtKByK(records, 1)).toBeNull();
  });

  it('counts errored rollouts as no sample at all', () => {
    // a: 2 scored (1 pass), 2 errored -> n = 2: pass@2 = 1, and pass@4 has no example with 4 samples.
    const records = [record('a', 0, 1), record('a', 1, 0), record('a', 2, null), record('a', 3, null)];
    expect(passAtKByK(records, 4)).toEqual({ '1': 0.5, '2': 1 });
  });
});

describe('group statistics', () => {
  it('an all-errored group has mean and std null, not 0', () => {
    expect(groupStats([])).toEqual({ mean: null, std: null, size: 0 });
    const { records } = restateGroupStats([record('a', 0, null), record('a', 1, null)]);
    for (const restated of records) expect(restated.group).toEqual({ mean: null, std: null, size: 0, advantage: null });
  });

  it('restates statistics over every record of the example and says whether anything changed', () => {
    const stale = [
      record('a', 0, 1, { group: { mean: 1, std: 0, size: 1, advantage: 0 } }),
      record('a', 1, 0, { group: { mean: 0, std: 0, size: 1, advantage: 0 } }),
    ];
    const { records, changed } = restateGroupStats(stale);
    expect(changed).toBe(true);
    expect(records.map((entry) => entry.group)).toEqual([
      { mean: 0.5, std: 0.5, size: 2, advantage: 0.5 },
      { mean: 0.5, std: 0.5, size: 2, advantage: -0.5 },
    ]);
    expect(restateGroupStats(records).changed).toBe(false);
  });
});

describe('model output', () => {
  it('keeps <think> reasoning out of the final answer, including a block the chat template opened or the token limit cut', () => {
    expect(answerWithoutReasoning('<think>maybe 4?</think>\n5')).toBe('5');
    expect(answerWithoutReasoning('the template opened it</think> 5')).toBe('5');
    expect(answerWithoutReasoning('<think>cut at the limit')).toBe('');
    expect(answerWithoutReasoning('  plain answer ')).toBe('  plain answer ');
  });

  it('reads finish_reason "length" as truncated, reasoning_content onto the message, and usage with cached tokens', () => {
    const turn = readChatCompletion(
      {
        choices: [{ message: { role: 'assistant', content: 'Harriet', reasoning_content: 'The page names her.' }, finish_reason: 'length' }],
        usage: { prompt_tokens: 120, completion_tokens: 16, prompt_tokens_details: { cached_tokens: 96 } },
      },
      1,
    );
    expect(turn.truncated).toBe(true);
    expect(turn.message).toEqual({ role: 'assistant', content: 'Harriet', reasoning_content: 'The page names her.' });
    expect(turn.usage).toEqual({ prompt_tokens: 120, completion_tokens: 16, cached_tokens: 96 });
    expect(readChatCompletion({ choices: [{ message: { content: 'x' }, finish_reason: 'stop' }] }, 1)).toMatchObject({ truncated: false, usage: null });
  });

  it('the summary counts truncations, sums usage and keeps one sample message per error code', () => {
    const summary = summarise([
      record('a', 0, 1, { truncated: true, usage: { prompt_tokens: 10, completion_tokens: 2, cached_tokens: 4 } }),
      record('a', 1, 1, { usage: { prompt_tokens: 5, completion_tokens: 1 } }),
      record('b', 0, null),
    ]);
    expect(summary).toMatchObject({
      truncated: 1,
      usage: { prompt_tokens: 15, completion_tokens: 3, cached_tokens: 4 },
      errorsByCode: { MODEL_ERR_SERVER: 1 },
      errorSamples: { MODEL_ERR_SERVER: 'HTTP 500 from the endpoint' },
    });
  });
});

describe('simulated users in the summary', () => {
  it("sums the simulated users' usage apart from the agent's, in metadata.json and the summary table", () => {
    const summary = summarise([
      record('a', 0, 1, { usage: { prompt_tokens: 10, completion_tokens: 2 }, user_usage: { prompt_tokens: 7, completion_tokens: 3 } }),
      record('a', 1, 0, { usage: { prompt_tokens: 5, completion_tokens: 1 }, user_usage: { prompt_tokens: 4, completion_tokens: 1 } }),
      record('b', 0, 1, { usage: { prompt_tokens: 1, completion_tokens: 1 } }),
    ]);
    expect(summary.usage).toEqual({ prompt_tokens: 16, completion_tokens: 4 });
    expect(summary.userUsage).toEqual({ prompt_tokens: 11, completion_tokens: 4 });
    expect(summaryMetadata(summary)).toMatchObject({ usage: { prompt_tokens: 16 }, user_usage: { prompt_tokens: 11, completion_tokens: 4 } });
    expect(formatSummary(summary, '/runs/x')).toMatch(/^user tokens\s+11 prompt, 4 completion$/m);
    expect(summarise([record('a', 0, 1)]).userUsage).toBeNull();
  });
});

describe('rubric failures', () => {
  it('a rubric that throws a plain error is RUBRIC_ERR_FAILED (boundary rubric), not RUNNER_ERR_UNEXPECTED', () => {
    expect(describeFailure(new TypeError("Cannot read properties of undefined (reading 'answers')"), 'rubric')).toMatchObject({
      boundary: 'rubric',
      code: 'RUBRIC_ERR_FAILED',
      transient: false,
    });
    expect(describeFailure(new Error('boom'), 'model')).toMatchObject({ code: 'RUNNER_ERR_UNEXPECTED' });
  });
});
