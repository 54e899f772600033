/**
 * Scoring a saved trajectory with an environment's parser and rubric, without the rollout's sandbox. The rubric
 * gets tools and a state that refuse every use (RESCORE_ERR_NEEDS_SANDBOX): a function that reads them cannot be
 * re-scored from a trajectory. Functions that declare `readsSandbox` are refused before anything runs; the others
 * are caught by a dry scoring of one record before the run starts, or, if they touch the sandbox only for some
 * records, on those records (errored, never scored 0).
 */
import { CorralError } from '../../core/errors.js';
import { readAnswer } from '../contract/answer-parser.js';
import type { Environment, Example } from '../contract/environment.js';
import type { ToolAccess } from '../contract/tool-access.js';
import { type RubricScore, scoreRubric } from '../rubrics/rubric.js';
import type { Trajectory } from '../trajectory/trajectory.js';

export interface TrajectoryScore extends RubricScore {
  /** The parsed answer's text (the record's final_answer). */
  answer: string | null;
}

const needsSandbox = (environment: Environment, what: string) =>
  new CorralError(
    'RESCORE_ERR_NEEDS_SANDBOX',
    `environment ${environment.name}: a rubric function read ${what}, which a saved trajectory does not hold; this rubric cannot be re-scored offline`,
    { details: { environment: environment.name, reads: what } },
  );

/** Refuses, before any scoring, an environment whose rubric declares that it reads the sandbox. */
export function assertRescorable(environment: Environment): void {
  const declared = environment.rubric.filter((item) => item.readsSandbox === true).map((item) => item.name);
  if (declared.length > 0)
    throw new CorralError(
      'RESCORE_ERR_NEEDS_SANDBOX',
      `environment ${environment.name}: rubric function${declared.length > 1 ? 's' : ''} ${declared.join(', ')} read${declared.length > 1 ? '' : 's'} the rollout's sandbox (readsSandbox), which a saved trajectory does not hold; re-run those rollouts instead`,
      { details: { environment: environment.name, functions: declared } },
    );
}

function refusingTools(environment: Environment): ToolAccess {
  return {
    get tools(): never {
      throw needsSandbox(environment, "the rollout's tools");
    },
    call: async () => {
      throw needsSandbox(environment, "the rollout's tools (a tool call)");
    },
  };
}

/** The state its tools left is not saved: with a state() the rubric gets an object that refuses reads; without one, `{}` as in a rollout. */
function refusingState(environment: Environment): unknown {
  if (!environment.state) return Object.freeze({});
  return new Proxy(
    {},
    {
      get: (_target, key) => {
        // Promise resolution and inspection probe `then` and symbols; those are not the rubric reading state.
        if (typeof key === 'symbol' || key === 'then') return undefined;
        throw needsSandbox(environment, `state.${key}`);
      },
      has: () => {
        throw needsSandbox(environment, 'the state');
      },
      ownKeys: () => {
        throw needsSandbox(environment, 'the state');
      },
    },
  );
}

export async function scoreTrajectory(environment: Environment, example: Example, trajectory: Trajectory, abortSignal?: AbortSignal): Promise<TrajectoryScore> {
  const { text, parsed } = readAnswer(environment.parser, trajectory.answer);
  const scored = await scoreRubric(environment.rubric, {
    example,
    trajectory: { ...trajectory, answer: text },
    tools: refusingTools(environment),
    state: refusingState(environment),
    parsedAnswer: parsed,
    rawAnswer: trajectory.answer,
    ...(abortSignal ? { abortSignal } : {}),
  });
  return { ...scored, answer: text };
}

/**
 * The dry scoring: one trajectory scored before the run starts, so a rubric that reads the sandbox is refused
 * before a run directory exists. Only RESCORE_ERR_NEEDS_SANDBOX propagates; any other failure is left to the run,
 * where it errors that record.
 */
export async function dryScore(environment: Environment, example: Example, trajectory: Trajectory): Promise<void> {
  try {
    await scoreTrajectory(environment, example, trajectory);
  } catch (error) {
    if (CorralError.isInstance(error) && error.code === 'RESCORE_ERR_NEEDS_SANDBOX') throw error;
  }
}
