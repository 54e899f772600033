/**
 * An agent turns an example into a trajectory using the environment's tools over MCP. Agents record what they
 * do through the recorder; they throw only for failures of their own boundary (model endpoint errors, as a
 * CorralError with a MODEL_ERR_* code that the runner blames on 'model'), infrastructure faults from tools, and
 * ERR_ABORTED when abortSignal fires; never for tool results with isError (those go back to the model).
 */
import type { Example } from '../contract/environment.js';
import type { ToolAccess } from '../contract/tool-access.js';
import type { ChatMessage } from '../trajectory/messages.js';
import type { TrajectoryRecorder } from '../trajectory/trajectory-recorder.js';
import type { AgentSandbox, AgentSandboxNeeds } from './agent-sandbox.js';

export interface AgentRunInput {
  example: Example;
  systemPrompt: string;
  tools: ToolAccess;
  maxTurns: number;
  recorder: TrajectoryRecorder;
  abortSignal: AbortSignal;
  /** Rollout index within the example's group (0..r-1), e.g. for seeding. */
  rolloutIndex: number;
  seed?: number;
  /**
   * The environment's stop predicates over the trajectory so far. An agent calls it after each turn's tool calls
   * and stops when it is true (the rollout then ends 'stopped'); absent when the environment has none. Throws
   * ENV_ERR_STOP_PREDICATE_FAILED when a predicate throws.
   */
  shouldStop?: () => boolean;
  /**
   * Present when the environment answers turns itself (`respond`). The agent calls it after each assistant turn that
   * called no tool, instead of ending at that answer: `done` ends the rollout (the environment said so, or a stop
   * predicate holds); otherwise `messages` (already recorded in the trajectory) join the agent's conversation and it
   * takes its next turn, up to maxTurns. Throws ENV_ERR_RESPOND_FAILED when respond fails (let it propagate).
   */
  environmentReply?: () => Promise<AgentEnvironmentTurn>;
  /** The rollout's own sandbox, for agents that declare sandboxNeeds (they run inside it); absent for the others. */
  sandbox?: AgentSandbox;
}

/** What environmentReply hands back: the episode is over, or the environment's messages to continue with. */
export type AgentEnvironmentTurn = { readonly done: true } | { readonly done: false; readonly messages: readonly ChatMessage[] };

export interface Agent {
  readonly name: string;
  /** Model name as written into results (e.g. 'gpt-4.1-mini', 'baseline'). */
  readonly model: string;
  readonly samplingArgs?: Readonly<Record<string, unknown>>;
  /**
   * Names of the environments this agent is written for (the model-free agents know one dataset's shape). Absent:
   * any environment. `corral eval` refuses a pairing outside the list before the first rollout.
   */
  readonly environments?: readonly string[];
  /**
   * For an agent that runs inside the rollout's sandbox: what that sandbox must offer, asked once before the first
   * rollout (so a missing install or a backend that cannot mount fails the run up front). Absent: the agent works
   * only through the tools.
   */
  sandboxNeeds?(): Promise<AgentSandboxNeeds>;
  /**
   * True when the agent holds the conversation itself and continues it after the environment's reply (it calls
   * AgentRunInput.environmentReply). An environment with `respond` refuses other agents (CLI agents, model-free
   * agents) before the first rollout with ENV_ERR_REPLIES_UNSUPPORTED.
   */
  readonly takesEnvironmentReplies?: boolean;
  run(input: AgentRunInput): Promise<void>;
  /** Releases what the agent holds across rollouts (a CLI agent's proxy listener); called once after the run. */
  close?(): Promise<void>;
}
