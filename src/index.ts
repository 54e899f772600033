// The public seam: named exports only (no star re-exports), so what we promise is explicit.
export { CorralError, ERROR_CODES } from './core/errors.js';
export type { ErrorAudience, ErrorCode } from './core/errors.js';
export { loadConfig } from './config/load-config.js';
export type { CorralConfig } from './config/load-config.js';
export { parseSandboxSpec, specHash, BACKEND_NAMES } from './sandbox/spec.js';
export type { BackendName, SandboxSpec, SandboxSpecInput } from './sandbox/spec.js';
export type {
  Capability,
  CallOptions,
  ExecOptions,
  ExecResult,
  PythonOptions,
  PythonResult,
  JavascriptOptions,
  JavascriptResult,
  SandboxFiles,
  SandboxSession,
} from './sandbox/session.js';
export type { SandboxProvider, SandboxHandle, Availability, ResetReport } from './sandbox/provider.js';
export type { Lease } from './sandbox/lease.js';
export { SandboxPool } from './sandbox/pool/sandbox-pool.js';
export type { PoolOptions } from './sandbox/pool/pool-options.js';
export { loadProvider } from './sandbox/registry.js';
export { buildServer } from './http/build-server.js';
export { createToolServer } from './mcp/create-tool-server.js';
export { buildToolCatalog } from './mcp/tool-catalog.js';
export { assembleToolServer } from './mcp/tool-server-assembly.js';
export type { ToolServerAssembly, ToolServerAssemblyOptions } from './mcp/tool-server-assembly.js';
export { poolSandboxSource } from './mcp/sandbox-source.js';
// corral's own zod, so an environment's schemas need no zod install and are the instances corral validates with.
export { z } from 'zod';
export type { ToolDefinition, ToolContext, ToolResult } from './tools/tool-definition.js';
export { WikiIndex } from './wiki-search/wiki-index.js';
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
// The one way to write an environment's own tool; it adapts into ToolDefinition (the built-in tools' contract) when served.
export { defineTool } from './runner/contract/environment-tool.js';
export type { EnvironmentTool, EnvironmentToolContext, EnvironmentToolHints, EnvironmentToolReply } from './runner/contract/environment-tool.js';
export type { EnvironmentSandbox, RolloutContext } from './runner/contract/rollout-context.js';
export { bindEnvironmentArgs, defineEnvironmentFactory, environmentArgsJsonSchema, isEnvironmentFactory } from './runner/contract/environment-args.js';
export type { EnvironmentDefinition, EnvironmentFactory, EnvironmentFactoryInput } from './runner/contract/environment-args.js';
export type { AnswerParser } from './runner/contract/answer-parser.js';
export { stripThinking, lastCodeBlock, xmlTag, jsonAnswer } from './runner/parsers/index.js';
export type { StopContext, StopPredicate } from './runner/contract/stop-predicate.js';
export { toolCalled, answerParses, stateSays, anyOf } from './runner/stopping/stop-predicates.js';
export type { EnvironmentRollout, EnvironmentRolloutFactory, EnvironmentScore } from './runner/contract/environment-rollout.js';
export type { Rubric, RubricFunction, RubricInput } from './runner/rubrics/rubric.js';
export type { Agent, AgentRunInput } from './runner/agents/agent.js';
// Model-free agents for an environment's CI: `export const agents = { reference: defineAgent({ name, run }) }`.
export { defineAgent } from './runner/contract/define-agent.js';
export type { ModelFreeAgentContext, ModelFreeAgentDefinition } from './runner/contract/define-agent.js';
export type { ToolInfo, ToolOutcome } from './runner/contract/tool-access.js';
export { OpenAIAgent } from './runner/agents/openai/openai-agent.js';
export { ScriptedAgent } from './runner/agents/scripted/scripted-agent.js';
export { openMcpToolSession } from './runner/contract/mcp-tool-session.js';
export { runEvaluation } from './runner/scheduler/run-evaluation.js';
export type { ResultRecord } from './runner/trajectory/result-record.js';
// Training samples (docs/training.md): the one builder from a result record, and its wire shape.
export { buildSamples } from './runner/samples/build-samples.js';
export type { TrainingSample, RolloutSamples, SampleMissingReason } from './runner/samples/training-sample.js';
export type { TurnTokens } from './runner/trajectory/messages.js';
// The recording model proxy CLI agents speak to (four dialects in, Chat Completions upstream, every call recorded).
export { startModelProxy } from './model-proxy/model-proxy.js';
export type { ModelProxy, ModelProxyOptions } from './model-proxy/model-proxy.js';
export type { ProxyRollout, ProxyRolloutOptions } from './model-proxy/proxy-rollout.js';
export type { ModelCall } from './model-proxy/model-call.js';
export type { UpstreamOptions } from './model-proxy/upstream-client.js';
// ATIF v1.7 trajectories (docs/results.md): the strict model, the validator, the converter from a result record.
export { ATIF_SCHEMA_VERSION, atifTrajectorySchema } from './export/atif-schema.js';
export type { AtifTrajectory, AtifStep, AtifToolCall, AtifMetrics } from './export/atif-schema.js';
export { validateAtif, assertValidAtif } from './export/atif-validate.js';
export type { AtifValidation } from './export/atif-validate.js';
export { toAtif } from './export/atif-from-record.js';
export type { ToAtifOptions } from './export/atif-from-record.js';
