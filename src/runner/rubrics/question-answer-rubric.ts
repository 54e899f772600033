/**
 * Rubric functions for short-answer questions: SQuAD exact match (the reward) and token F1 (recorded), both
 * against every gold answer of the example, and the gold answers' lookup shared with the LLM judge.
 */
import type { Example } from '../contract/environment.js';
import type { RubricFunction } from './rubric.js';
import { exactMatch, maxOverGold, tokenF1 } from './squad-answer-match.js';

/** Gold answers: `answer` (a string or a list) plus `info.answers`, deduplicated, order kept. */
export function goldAnswers(example: Example): string[] {
  const fromAnswer = typeof example.answer === 'string' ? [example.answer] : Array.isArray(example.answer) ? example.answer : [];
  const fromInfo = Array.isArray(example.info?.answers) ? example.info.answers : [];
  return [...new Set([...fromAnswer, ...fromInfo].filter((item): item is string => typeof item === 'string'))];
}

export function exactMatchRubric(weight = 1): RubricFunction {
  return {
    name: 'exact_match',
    weight,
    score: ({ example, trajectory }) => (trajectory.answer === null ? 0 : maxOverGold(exactMatch, trajectory.answer, goldAnswers(example))),
  };
}

export function tokenF1Rubric(weight = 0): RubricFunction {
  return {
    name: 'f1',
    weight,
    score: ({ example, trajectory }) => (trajectory.answer === null ? 0 : maxOverGold(tokenF1, trajectory.answer, goldAnswers(example))),
  };
}
