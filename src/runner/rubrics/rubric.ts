/**
 * A rubric is a list of weighted functions of (example, trajectory, tools) -> number. Reward is the weighted sum;
 * weight 0 records a metric without rewarding it. A rubric function that throws marks the rollout errored
 * (boundary 'rubric'), never scored 0.
 *
 * Generic in the environment's State (what its `state()` returns), so a rubric written inside defineEnvironment
 * reads `state.solved` without a cast; a function written for any state (State = unknown) fits every environment.
 */
import type { Example } from '../contract/environment.js';
import type { ToolAccess } from '../contract/tool-access.js';
import type { Trajectory } from '../trajectory/trajectory.js';

export interface RubricInput<State = unknown> {
  example: Example;
  trajectory: Trajectory;
  /** The rollout's own tools (same sandbox), e.g. to run tests where the agent worked. */
  tools: ToolAccess;
  abortSignal?: AbortSignal;
  /** The rollout's state object (environment.state(), `{}` without one), as the tools left it. */
  state: State;
  /** What the environment's parser read from the final text (trajectory.answer is its text form); the raw text without a parser. */
  parsedAnswer?: unknown;
  /** The final text before parsing (null when the agent gave none). */
  rawAnswer?: string | null;
  /** In an environment with roles: the role being scored (its trajectory is `trajectory`); the rubric runs once per role. */
  role?: string;
}

export interface RubricFunction<State = unknown> {
  name: string;
  weight: number;
  /**
   * True when the function reads the rollout's sandbox (its `tools`) or the `state` its tools left: `corral rescore`
   * then refuses it (RESCORE_ERR_NEEDS_SANDBOX), because a saved trajectory holds neither. Undeclared functions that
   * touch tools or state are caught by rescore's dry scoring.
   */
  readsSandbox?: boolean;
  /** Method syntax on purpose: a function typed for one environment's State still fits `Rubric` (State = unknown). */
  score(input: RubricInput<State>): Promise<number> | number;
}

export type Rubric<State = unknown> = readonly RubricFunction<State>[];

export interface RubricScore {
  reward: number;
  metrics: Record<string, number>;
}

export async function scoreRubric<State>(rubric: Rubric<State>, input: RubricInput<State>): Promise<RubricScore> {
  const metrics: Record<string, number> = {};
  let reward = 0;
  for (const item of rubric) {
    const value = await item.score(input);
    metrics[item.name] = value;
    reward += item.weight * value;
  }
  return { reward, metrics };
}
