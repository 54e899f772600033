// `corral/server`: for hosts that embed corral rather than write environments: the configuration, the fastify app,
// the MCP tool-server assembly and the built-in tools' contract, the runner (environment loading helpers, agents,
// evaluation), the recording model proxy and ATIF export. Named exports only. Sandboxes are `corral/sandbox`.
export { loadConfig } from './config/load-config.js';
export type { CorralConfig } from './config/load-config.js';

// Serving tools over MCP.
export { buildServer } from './http/build-server.js';
export type { ServerDependencies } from './http/build-server.js';
export { createToolServer } from './mcp/create-tool-server.js';
export { buildToolCatalog } from './mcp/tool-catalog.js';
export { assembleToolServer } from './mcp/tool-server-assembly.js';
export type { ToolServerAssembly, ToolServerAssemblyOptions } from './mcp/tool-server-assembly.js';
export { poolSandboxSource } from './mcp/sandbox-source.js';
export type { SandboxSource } from './mcp/sandbox-source.js';
export type { ToolResult } from './tools/tool-definition.js';
export { WikiIndex } from './wiki-search/wiki-index.js';

// Running environments: what a loader does with an environment module, one rollout's view of it, agents, evaluation.
export { bindEnvironmentArgs, environmentArgsJsonSchema, isEnvironmentFactory } from './runner/contract/environment-args.js';
export type { EnvironmentRollout, EnvironmentRolloutFactory, EnvironmentScore } from './runner/contract/environment-rollout.js';
export { OpenAIAgent } from './runner/agents/openai/openai-agent.js';
export { openMcpToolSession } from './runner/contract/mcp-tool-session.js';
export { runEvaluation } from './runner/scheduler/run-evaluation.js';
export type { EvaluationOptions, EvaluationProgress } from './runner/scheduler/run-evaluation.js';

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
