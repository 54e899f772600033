/** The reward bracket and the rescoring wrapper, over records and rubrics made here. */
import { describe, expect, it } from 'vitest';
import { checkDeterminism, rescoringEnvironment } from '../../../src/environment-check/determinism-check.js';
import { checkFloor, checkOracle, maximumReward } from '../../../src/environment-check/reward-checks.js';
import { defineEnvironment } from '../../../src/runner/contract/environment.js';
import type { Rubric, RubricInput } from '../../../src/runner/rubrics/rubric.js';
import type { ResultRecord } from '../../../src/runner/trajectory/result-record.js';

const rubric: Rubric = [
  { name: 'correct', weight: 1, score: () => 1 },
  { name: 'format', weight: 0.5, score: () => 1 },
  { name: 'turns', weight: 0, score: () => 3 },
];
const record = (example: string, reward: number | null): ResultRecord =>
  ({ example_id: example, reward, error: reward === null ? { message: 'boom' } : null, final_answer: '' }) as unknown as ResultRecord;

describe('oracle and floor', () => {
  it('takes the maximum as the sum of positive weights and lists the examples the oracle misses', () => {
    expect(maximumReward(rubric)).toBe(1.5);
    const check = checkOracle([record('a', 1.5), record('b', 1), record('c', null)], maximumReward(rubric), 'solver');
    expect(check).toMatchObject({
      id: 'oracle.max-reward',
      severity: 'error',
      evidence: { misses: [{ example: 'b', reward: 1 }], errored: [{ example: 'c' }] },
    });
    expect(checkOracle([record('a', 1.5)], maximumReward(rubric), 'solver')).toMatchObject({ passed: true });
  });

  it('says the rubric pays for nothing only when the oracle itself scores, and blames the oracle otherwise', () => {
    const paying = checkFloor([record('a', 1.2)], [record('a', 1.5)], maximumReward(rubric), 0.5);
    expect(paying).toMatchObject({ id: 'floor.below-oracle', severity: 'error' });
    expect(paying.summary).toContain('pays for doing nothing');
    const weakOracle = checkFloor([record('a', 0)], [record('a', 0.2)], maximumReward(rubric), 0.5);
    expect(weakOracle.summary).toContain('oracle.max-reward');
    expect(checkFloor([record('a', 0)], [record('a', 1.5)], maximumReward(rubric), 0.5)).toMatchObject({ passed: true });
  });
});

describe('rescoring', () => {
  it('scores each trajectory N times, keeps the first score, and reports any spread as an error', async () => {
    let calls = 0;
    const environment = defineEnvironment({
      name: 'counting',
      dataset: () => [],
      rubric: [
        { name: 'steady', weight: 1, score: () => 1 },
        { name: 'drifting', weight: 0, score: () => ++calls },
      ],
      systemPrompt: '',
    });
    const rescoring = rescoringEnvironment(environment, 3);
    const input = { example: { id: 'e1', prompt: 'q' } } as unknown as RubricInput;
    expect(await rescoring.environment.rubric[1]!.score(input)).toBe(1);
    expect(await rescoring.environment.rubric[0]!.score(input)).toBe(1);
    expect(rescoring.environment.rubric.map((item) => item.weight)).toEqual([1, 0]);
    const check = checkDeterminism(rescoring.scores, 3);
    expect(check).toMatchObject({
      id: 'rubric.deterministic',
      severity: 'error',
      evidence: { spreads: [{ example: 'e1', function: 'drifting', values: [1, 2, 3] }] },
    });
  });

  it('reports a judge’s spread as a warning', () => {
    const scores = new Map([['e1', new Map([['llm_judge', [1, 0, 1]]])]]);
    expect(checkDeterminism(scores, 3)).toMatchObject({ passed: false, severity: 'warning' });
  });
});
