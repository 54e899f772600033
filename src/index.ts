// `corral`: what an environment author writes with (STYLE principle 23). Named exports only (no star re-exports), so
// what we promise is explicit. Hosts that embed corral's server, runner or sandboxes import `corral/server` and
// `corral/sandbox` (src/server-api.ts, src/sandbox-api.ts); fakes for tests are `corral/testing`.
export { CorralError, ERROR_CODES } from './core/errors.js';
export type { ErrorAudience, ErrorCode } from './core/errors.js';
// corral's own zod, so an environment's schemas need no zod install and are the instances corral validates with.
export { z } from 'zod';

// The environment: defineEnvironment infers State from state() and Args from argsSchema (docs/environments.md).
export { defineEnvironment, TOOLSET_NAMES } from './runner/contract/environment.js';
export type {
  DatasetOptions,
  DatasetSource,
  Environment,
  EnvironmentInput,
  EnvironmentLimits,
  Example,
  ExampleSandbox,
  ToolsetName,
} from './runner/contract/environment.js';
export { defineEnvironmentFactory } from './runner/contract/environment-args.js';
export type { EnvironmentDefinition, EnvironmentFactory, EnvironmentFactoryInput } from './runner/contract/environment-args.js';
// The one way to write an environment's own tool.
export { defineTool } from './runner/contract/environment-tool.js';
export type { ToolAnnotations, ToolContext, ToolDefinition, ToolReply } from './runner/contract/environment-tool.js';
export type { EnvironmentSandbox, RolloutContext } from './runner/contract/rollout-context.js';
export type { EnvironmentReply, RespondContext, UserModelCall } from './runner/contract/environment-reply.js';
// Environments that talk back: a second model playing the user, or a scripted user for tests (docs/environments.md).
export { simulatedUser } from './runner/users/simulated-user.js';
export type { SimulatedUserOptions } from './runner/users/simulated-user.js';
export { scriptedUser } from './runner/users/scripted-user.js';
export type { ScriptedUserReply, ScriptedUserScript } from './runner/users/scripted-user.js';

// Answers, stopping and scoring.
export type { AnswerParser } from './runner/contract/answer-parser.js';
export { stripThinking, lastCodeBlock, xmlTag, jsonAnswer } from './runner/parsers/index.js';
export type { StopContext, StopPredicate } from './runner/contract/stop-predicate.js';
export { toolCalled, answerParses, stateSays, anyOf } from './runner/stopping/stop-predicates.js';
export type { Rubric, RubricFunction, RubricInput } from './runner/rubrics/rubric.js';
export { exactMatchRubric, tokenF1Rubric } from './runner/rubrics/question-answer-rubric.js';
export { exactMatch, tokenF1 } from './runner/rubrics/squad-answer-match.js';
export { llmJudge } from './runner/rubrics/llm-judge.js';
export type { LlmJudgeOptions } from './runner/rubrics/llm-judge.js';
export { testsPassRubric } from './runner/rubrics/tests-pass-rubric.js';
export type { TestsPassOptions } from './runner/rubrics/tests-pass-rubric.js';
export { toolCallCountMetric, turnCountMetric } from './runner/rubrics/trajectory-metrics.js';
export type { Trajectory } from './runner/trajectory/trajectory.js';
export type { ChatMessage, ToolCallRequest, TurnTokens } from './runner/trajectory/messages.js';

// Agents an environment ships for its CI: `export const agents = { reference: defineAgent({ name, run }) }`, or
// its own class implementing Agent, or a ScriptedAgent with its tool calls given up front.
export type { Agent, AgentRunInput } from './runner/agents/agent.js';
export { defineAgent } from './runner/contract/define-agent.js';
export type { ModelFreeAgentContext, ModelFreeAgentDefinition } from './runner/contract/define-agent.js';
export type { ToolInfo, ToolOutcome } from './runner/contract/tool-access.js';
export { ScriptedAgent } from './runner/agents/scripted/scripted-agent.js';

// What a run writes, and the training samples a trainer builds from it (docs/training.md).
export type { ResultRecord } from './runner/trajectory/result-record.js';
export { buildSamples } from './runner/samples/build-samples.js';
export type { TrainingSample, RolloutSamples, SampleMissingReason } from './runner/samples/training-sample.js';
