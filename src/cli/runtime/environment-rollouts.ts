/**
 * Opens one rollout of an environment in this process: a fresh state, lazily leased sandboxes, the toolsets'
 * tools plus the environment's own tools, called in the scope of that state, one in-memory MCP session
 * (cli/eval/in-process-tools.ts), and the runner's EnvironmentRollout over all of it. `corral eval`, POST
 * /v1/rollouts and the episode API all open rollouts here; the episode API may also mount `toolDefinitions` in
 * `scope` for its own MCP endpoint (assembleToolServer with `sandboxes: { shared: rollout.sandboxes }`). An agent that runs inside
 * the sandbox (a CLI agent) has its needs merged into that same sandbox's spec: one sandbox per rollout.
 */
import { CorralError } from '../../core/errors.js';
import { LazySandboxes, toolSandboxOf } from '../../mcp/lazy-sandboxes.js';
import { forkedSandboxSource, type SandboxSource } from '../../mcp/sandbox-source.js';
import type { ToolCallObserver } from '../../mcp/tool-call-observer.js';
import type { AgentSandboxNeeds } from '../../runner/agents/agent-sandbox.js';
import type { Environment, Example } from '../../runner/contract/environment.js';
import type { EnvironmentRollout, EnvironmentRolloutFactory, RolloutCheckpoint } from '../../runner/contract/environment-rollout.js';
import { copyRolloutState, createEnvironmentRollout, initialRolloutState } from '../../runner/scheduler/environment-rollout.js';
import type { ToolDefinition } from '../../tools/tool-definition.js';
import type { ToolScope } from '../../tools/tool-scope.js';
import { type AgentRolloutSandbox, openAgentSockets } from './agent-sandbox-spec.js';
import { openInProcessToolSession } from '../eval/in-process-tools.js';

export interface OpenEnvironmentRolloutOptions {
  environment: Environment;
  example: Example;
  /** The tools of the environment's toolsets (toolsForToolsets(environment.toolsets, { wiki })). */
  toolsetTools: readonly ToolDefinition[];
  /** This rollout's sandboxes: exampleSandboxSource(runtime, environment, example) honours the example's choices. */
  sandboxSource: SandboxSource;
  observer?: ToolCallObserver;
  abortSignal?: AbortSignal;
  /** This rollout's socket folder for an agent that runs inside the sandbox (already in sandboxSource's spec); removed on release. */
  agentSockets?: { directory: string; remove(): Promise<void> };
  /** Start from a checkpoint (setupScope 'example'): its state copied, its sandbox forked, setup counted as done. */
  from?: RolloutCheckpoint;
}

export interface InProcessEnvironmentRollout extends EnvironmentRollout {
  /** Every tool of this rollout (toolsets first, then the environment's own); called in `scope` over `sandboxes`. */
  readonly toolDefinitions: readonly ToolDefinition[];
  /** The rollout's example, state and envArgs, as its tools see them. */
  readonly scope: ToolScope<unknown, unknown>;
  /** The rollout's sandboxes; released by close(). */
  readonly sandboxes: LazySandboxes;
}

export async function openEnvironmentRollout(options: OpenEnvironmentRolloutOptions): Promise<InProcessEnvironmentRollout> {
  const { environment, example } = options;
  assertDistinctToolNames(environment, options.toolsetTools);
  const { from } = options;
  const state = from ? copyRolloutState(environment, from.state) : initialRolloutState(environment, example);
  const sandboxes = new LazySandboxes(from?.sandbox ? forkedSandboxSource(options.sandboxSource, from.sandbox) : options.sandboxSource);
  const sandbox = toolSandboxOf(sandboxes, 'general');
  const toolDefinitions: readonly ToolDefinition[] = [...options.toolsetTools, ...environment.tools];
  const scope: ToolScope<unknown, unknown> = { example, state, envArgs: environment.envArgs };
  let tools;
  try {
    tools = await openInProcessToolSession(
      { tools: toolDefinitions, sandboxes: { shared: sandboxes }, scopeFor: () => scope, observer: options.observer },
      options.abortSignal ? { abortSignal: options.abortSignal } : {},
    );
  } catch (error) {
    await sandboxes.release();
    await options.agentSockets?.remove().catch(() => undefined);
    throw error;
  }
  const rollout = createEnvironmentRollout({
    environment,
    example,
    state,
    tools,
    sandbox,
    ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
    agentSocketsDirectory: options.agentSockets?.directory ?? null,
    setupDone: from !== undefined,
    snapshotSandbox: (snapshotOptions) => sandboxes.snapshot('general', snapshotOptions),
    release: async () => {
      await sandboxes.release();
      await options.agentSockets?.remove();
    },
  });
  return Object.assign(rollout, { toolDefinitions: Object.freeze(toolDefinitions), scope, sandboxes });
}

/** A factory of in-process rollouts for runEvaluation: the sandbox source is chosen per example. */
export function environmentRolloutFactory(options: {
  environment: Environment;
  toolsetTools: readonly ToolDefinition[];
  /** `agent` is given when an agent runs inside the sandbox: merge its needs into the spec (exampleSandboxSource's option). */
  sandboxSourceFor: (example: Example, agent?: AgentRolloutSandbox & { name: string }) => SandboxSource;
  observer?: ToolCallObserver;
  /** An agent that runs inside the rollout's sandbox (Agent.sandboxNeeds, asked once by the caller). */
  agentSandbox?: { name: string; needs: AgentSandboxNeeds };
}): EnvironmentRolloutFactory {
  assertDistinctToolNames(options.environment, options.toolsetTools);
  return {
    open: async ({ example, abortSignal, from }) => {
      const agent = options.agentSandbox;
      const sockets = agent?.needs.socketsTarget ? await openAgentSockets() : undefined;
      try {
        const sandboxSource = options.sandboxSourceFor(
          example,
          agent ? { name: agent.name, needs: agent.needs, socketsDirectory: sockets?.directory ?? null } : undefined,
        );
        return await openEnvironmentRollout({
          environment: options.environment,
          example,
          toolsetTools: options.toolsetTools,
          sandboxSource,
          ...(options.observer ? { observer: options.observer } : {}),
          ...(abortSignal ? { abortSignal } : {}),
          ...(sockets ? { agentSockets: sockets } : {}),
          ...(from ? { from } : {}),
        });
      } catch (error) {
        // openEnvironmentRollout removes the folder itself once it holds it; a spec refused before that did not.
        await sockets?.remove().catch(() => undefined);
        throw error;
      }
    },
  };
}

function assertDistinctToolNames(environment: Environment, toolsetTools: readonly ToolDefinition[]): void {
  const builtIn = new Set(toolsetTools.map((tool) => tool.name));
  const clash = environment.tools.filter((tool) => builtIn.has(tool.name)).map((tool) => tool.name);
  if (clash.length > 0) {
    throw new CorralError(
      'ENV_ERR_INVALID_MODULE',
      `environment ${environment.name}: its own tool(s) ${clash.join(', ')} have the name of a tool in its toolsets (${environment.toolsets.join(', ')}); rename them`,
      { details: { tools: clash } },
    );
  }
}
