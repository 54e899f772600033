import { describe, expect, it } from 'vitest';
import type { Example } from '../../../../src/runner/contract/environment.js';
import { exactMatchRubric, goldAnswers, tokenF1Rubric } from '../../../../src/runner/rubrics/question-answer-rubric.js';
import { answerTokens, exactMatch, maxOverGold, normaliseAnswer, tokenF1 } from '../../../../src/runner/rubrics/squad-answer-match.js';
import type { RubricInput } from '../../../../src/runner/rubrics/rubric.js';
import type { ToolAccess } from '../../../../src/runner/contract/tool-access.js';
import type { Trajectory } from '../../../../src/runner/trajectory/trajectory.js';

const trajectory = (answer: string | null): Trajectory => ({ completion: [], answer, events: [], toolCalls: [], turns: 1, tokens: [], failure: null });
const noTools: ToolAccess = { tools: [], call: () => Promise.reject(new Error('no tools in this test')) };
const input = (example: Example, answer: string | null): RubricInput => ({ example, trajectory: trajectory(answer), tools: noTools, state: {} });

describe('SQuAD normalisation', () => {
  it.each([
    ['The Eiffel Tower', 'eiffel tower'],
    ['  an   apple, a day!  ', 'apple day'],
    ['"Denver Broncos."', 'denver broncos'],
    ['$5,500,000', '5500000'],
    ['the theatre', 'theatre'],
    ['Anne-Marie', 'annemarie'],
    ['A', ''],
    ['Théa a café', 'théa café'],
    ['66–34 Mya', '66–34 mya'],
    ['under_score', 'underscore'],
  ])('%j -> %j', (text, expected) => {
    expect(normaliseAnswer(text)).toBe(expected);
  });

  it('keeps articles inside words and non-ASCII word characters', () => {
    expect(normaliseAnswer('theatre anthem thea')).toBe('theatre anthem thea');
    expect(normaliseAnswer('étheé')).toBe('étheé');
  });

  it('tokenises the normalised text', () => {
    expect(answerTokens('The quick, brown fox.')).toEqual(['quick', 'brown', 'fox']);
    expect(answerTokens('the')).toEqual([]);
  });
});

describe('exact match and F1', () => {
  it('matches after normalisation', () => {
    expect(exactMatch('the Denver Broncos', 'Denver Broncos')).toBe(1);
    expect(exactMatch('Denver', 'Denver Broncos')).toBe(0);
  });

  it('computes token F1 with repeated tokens counted as a bag', () => {
    expect(tokenF1('Denver Broncos', 'Denver Broncos')).toBe(1);
    expect(tokenF1('Denver', 'Denver Broncos')).toBeCloseTo(2 / 3);
    expect(tokenF1('x y y', 'y z')).toBeCloseTo(0.4);
    expect(tokenF1('nothing shared', 'Denver')).toBe(0);
    expect(tokenF1('', '')).toBe(0);
  });

  it('takes the best score over gold answers, 0 with none', () => {
    expect(maxOverGold(exactMatch, 'nine', ['nine nations', 'nine'])).toBe(1);
    expect(maxOverGold(tokenF1, 'nine', ['nine nations', 'ten'])).toBeCloseTo(2 / 3);
    expect(maxOverGold(exactMatch, 'x', [])).toBe(0);
  });
});

describe('question-answer rubric functions', () => {
  const example: Example = { id: 'q', prompt: 'How many nations?', answer: 'nine nations', info: { answers: ['nine nations', 'nine'] } };

  it('collects gold answers from answer and info.answers without repeats', () => {
    expect(goldAnswers(example)).toEqual(['nine nations', 'nine']);
    expect(goldAnswers({ id: 'x', prompt: 'p', answer: ['a', 'b'] })).toEqual(['a', 'b']);
    expect(goldAnswers({ id: 'x', prompt: 'p' })).toEqual([]);
  });

  it('scores exact match (weight 1) and F1 (weight 0)', async () => {
    const exact = exactMatchRubric();
    const f1 = tokenF1Rubric();
    expect([exact.name, exact.weight, f1.name, f1.weight]).toEqual(['exact_match', 1, 'f1', 0]);
    expect(await exact.score(input(example, 'Nine.'))).toBe(1);
    expect(await f1.score(input(example, 'nine countries'))).toBeCloseTo(2 / 3);
  });

  it('gives 0 to a rollout without an answer, even against a gold answer that normalises to nothing', async () => {
    const odd: Example = { id: 'q', prompt: 'p', answer: 'the' };
    expect(await exactMatchRubric().score(input(odd, null))).toBe(0);
    expect(await tokenF1Rubric().score(input(example, null))).toBe(0);
  });
});
