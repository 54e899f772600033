/**
 * rubric.deterministic: the oracle's run scores each trajectory N times (every rubric function, same input, same
 * sandbox) and compares. The environment is wrapped, not changed: the first score is the one the record keeps.
 * A function named like a judge (an LLM grader) reports its spread as a warning; any other spread is an error.
 * In an environment with roles each role's trajectory is scored apart, so the scores are kept per example and role.
 */
import type { Environment } from '../runner/contract/environment.js';
import type { Rubric } from '../runner/rubrics/rubric.js';
import { type CheckResult, failed, passed } from './check-report.js';
import { measuredId } from './lineups.js';

export interface RescoringEnvironment {
  environment: Environment;
  /** Per example id (with the role, in an environment with roles), per rubric function: the N scores. */
  scores: Map<string, Map<string, number[]>>;
}

export function rescoringEnvironment(environment: Environment, times: number): RescoringEnvironment {
  const scores = new Map<string, Map<string, number[]>>();
  const spread = (values: readonly number[] | undefined) => values !== undefined && Math.max(...values) - Math.min(...values) > 1e-12;
  const rubric: Rubric = environment.rubric.map((item) => ({
    name: item.name,
    weight: item.weight,
    score: async (input) => {
      const values: number[] = [];
      for (let index = 0; index < times; index++) values.push(await item.score(input));
      const key = measuredId(input.example.id, input.role ?? null);
      const byFunction = scores.get(key) ?? new Map<string, number[]>();
      // The battery scores an example once per run it is in: a spread seen in one run is kept.
      if (!spread(byFunction.get(item.name))) byFunction.set(item.name, values);
      scores.set(key, byFunction);
      return values[0]!;
    },
  }));
  return { environment: Object.freeze({ ...environment, rubric: Object.freeze(rubric) }), scores };
}

export function checkDeterminism(scores: RescoringEnvironment['scores'], times: number): CheckResult {
  const spreads: { example: string; function: string; values: number[] }[] = [];
  for (const [example, byFunction] of scores) {
    for (const [name, values] of byFunction) {
      if (Math.max(...values) - Math.min(...values) > 1e-12) spreads.push({ example, function: name, values });
    }
  }
  const evidence = { times, trajectories: scores.size, spreads: spreads.slice(0, 20) };
  if (scores.size === 0) return failed('rubric.deterministic', 'warning', 'no trajectory was scored (the oracle errored everywhere)', evidence);
  if (spreads.length === 0) return passed('rubric.deterministic', `${scores.size} trajectories scored ${times} times each gave the same rewards`, evidence);
  const judgesOnly = spreads.every((spread) => /judge/i.test(spread.function));
  return failed(
    'rubric.deterministic',
    judgesOnly ? 'warning' : 'error',
    `the same trajectory scored ${times} times gave different values (${[...new Set(spreads.map((spread) => spread.function))].join(', ')}) on ${new Set(spreads.map((spread) => spread.example)).size} examples`,
    evidence,
  );
}
