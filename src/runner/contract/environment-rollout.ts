/**
 * One rollout's view of its environment, shared by `runRollout` (corral eval, POST /v1/rollouts) and the
 * episode API (POST /v1/episodes, where a trainer runs its own agent loop): the tool session bound to this
 * example and state, the sandbox, setup, the stop check, scoring and close. Implemented by
 * createEnvironmentRollout (runner/scheduler/environment-rollout.ts) over what the serving side supplies
 * (cli/runtime/environment-rollouts.ts: MCP over lazily leased sandboxes).
 */
import type { SandboxSnapshot } from '../../sandbox/snapshot.js';
import type { RubricScore } from '../rubrics/rubric.js';
import type { ChatMessage } from '../trajectory/messages.js';
import type { Trajectory } from '../trajectory/trajectory.js';
import type { Example } from './environment.js';
import type { UserModelCall } from './environment-reply.js';
import type { EnvironmentSandbox } from './rollout-context.js';
import type { ToolSession } from './tool-session.js';

export interface EnvironmentScore extends RubricScore {
  /** The parsed final answer text the rubric saw (results' final_answer). */
  answer: string | null;
}

/** An EnvironmentReply after checking: messages as a list of user/system messages, the reason null when none was given. */
export type CheckedEnvironmentReply = (
  { readonly done: true; readonly reason: string | null } | { readonly done: false; readonly messages: readonly ChatMessage[] }
) & { readonly userCalls: readonly UserModelCall[] };

/**
 * A rollout after its setup, to start others from (setupScope 'example'): a deep copy of the state and a snapshot of
 * its general sandbox's files (null when setup never touched the sandbox).
 */
export interface RolloutCheckpoint {
  readonly state: unknown;
  readonly sandbox: SandboxSnapshot | null;
}

export interface EnvironmentRollout<State = unknown> {
  readonly example: Example;
  readonly state: State;
  readonly envArgs: unknown;
  /** The environment's tools (toolsets + its own) over MCP, bound to this rollout's state and sandbox. */
  readonly tools: ToolSession;
  readonly sandbox: EnvironmentSandbox;
  /** Host folder of this rollout's agent sockets, when the agent's sandbox needs ask for one (AgentSandboxNeeds.socketsTarget). */
  readonly agentSocketsDirectory?: string | null;
  /**
   * Runs the environment's setup once (later calls return the first outcome). Throws CorralError
   * ENV_ERR_SETUP_FAILED (boundary 'environment') when setup throws; infrastructure faults (SBX_, POOL_) as they are.
   */
  runSetup(options?: { abortSignal?: AbortSignal }): Promise<void>;
  /**
   * After setup: a copy of this rollout's state (the environment's forkState, else structuredClone) and its sandbox
   * files, for open({ from }). Throws ENV_ERR_FORK_STATE_FAILED when the state cannot be copied, SBX_ERR_UNSUPPORTED
   * when the sandbox cannot fork.
   */
  checkpoint(options?: { abortSignal?: AbortSignal }): Promise<RolloutCheckpoint>;
  /** True when a stop predicate holds over `trajectory`. A predicate that throws raises ENV_ERR_STOP_PREDICATE_FAILED. */
  shouldStop(trajectory: Trajectory): boolean;
  /** True when the environment answers turns itself (it has `respond`). */
  readonly responds: boolean;
  /**
   * The environment's reply after an assistant turn without tool calls, checked. Without `respond`: done, reason null.
   * Throws ENV_ERR_RESPOND_FAILED (boundary 'environment') when respond throws or returns something else than an
   * EnvironmentReply; sandbox faults (SBX_, POOL_) as they are.
   */
  respond(
    input: { messages: readonly ChatMessage[]; turn: number; role?: string; nextRole?: string },
    options?: { abortSignal?: AbortSignal },
  ): Promise<CheckedEnvironmentReply>;
  /**
   * Scores with the environment's rubric against the same sandbox, after reading the answer with its parser. Given a
   * completion alone (episode API), the trajectory is that completion as the last assistant message.
   * `role`: the role whose trajectory this is (environments with roles), passed to the rubric functions.
   * Rubric faults throw (RUBRIC_ERR_*); a rubric function throwing a plain Error gives RUBRIC_ERR_FAILED.
   */
  score(
    input: ({ trajectory: Trajectory } | { completion: string | ChatMessage[] }) & { role?: string },
    options?: { abortSignal?: AbortSignal },
  ): Promise<EnvironmentScore>;
  /**
   * Runs cleanup (once, always: after scoring, and also after a failed setup, a failure or a cancel), then closes the tool session and
   * releases the sandbox. Idempotent. Resolves with the cleanup failure (ENV_ERR_CLEANUP_FAILED) or null; never throws.
   */
  close(): Promise<Error | null>;
}

export interface EnvironmentRolloutFactory {
  /**
   * Opens one rollout for this example: a fresh state and (lazily) a fresh sandbox, or, with `from`, a copy of that
   * checkpoint's state and a sandbox started from its files, setup counted as done. Infrastructure faults throw.
   */
  open(options: { example: Example; abortSignal?: AbortSignal; from?: RolloutCheckpoint }): Promise<EnvironmentRollout>;
}
