/** Weight-0 rubric functions that record how a rollout went (tool calls, turns) without rewarding it. */
import type { RubricFunction } from './rubric.js';

export const toolCallCountMetric: RubricFunction = {
  name: 'tool_calls',
  weight: 0,
  score: ({ trajectory }) => trajectory.toolCalls.length,
};

export const turnCountMetric: RubricFunction = {
  name: 'turns',
  weight: 0,
  score: ({ trajectory }) => trajectory.turns,
};
