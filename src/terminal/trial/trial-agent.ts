/**
 * The agent phase's contract: something that works in the trial container until it is done or its deadline
 * passes. The built-in oracle and nop agents, the model agent (bash and files tools served against this
 * container) and, later, CLI coding agents installed in the container all implement it.
 */
import type { ExecResult, SandboxSession } from '../../sandbox/session.js';
import type { TerminalTask } from '../terminal-task.js';
import type { TrialContainerMounts } from './trial-container.js';

export interface TrialAgentContext {
  task: TerminalTask;
  /** The task's instruction.md. */
  instruction: string;
  /** The in-sandbox agent of the trial container (commands as root unless [agent].user, in the task's workdir). */
  session: SandboxSession;
  /** Epoch ms when the agent phase ends ([agent].timeout_sec x --timeout-multiplier); abortSignal fires then too. */
  deadlineMs: number;
  abortSignal: AbortSignal;
  /** Runs a shell command in the container with whatever is left of the phase's time. */
  exec(command: string, options?: { env?: Readonly<Record<string, string>>; maxOutputChars?: number }): Promise<ExecResult>;
  /** Copies a host folder into the container at an absolute path (a tar through the in-sandbox agent). */
  copyIn(hostDirectory: string, containerDirectory: string): Promise<void>;
  /** Rollout index within the task's group (0..r-1). */
  rolloutIndex: number;
  /** Host path of the container's own socket folder, when the agent asked for one (TrialAgent.containerMounts). */
  socketsDirectory: string | null;
}

/** What the agent phase reports; a failing agent still gets verified (as Harbor does), and the record says so. */
export interface TrialAgentOutcome {
  /** The agent's own exit status when it is a process (oracle: solve.sh), else null. */
  exitCode: number | null;
  /** Short text the record keeps (tail of output, the model's final answer). */
  summary?: string;
  /** Anything else the agent wants on the record (turns, token usage, the transcript). */
  details?: Record<string, unknown>;
  /**
   * Files the host side writes into <trial>/agent/ after /logs/agent was collected, replacing anything the container
   * left at those names (so nothing that ran in the container can forge them). Names are plain file names.
   */
  agentFiles?: ReadonlyArray<{ name: string; content: string }>;
  /**
   * Set when the agent could not work for a reason outside the task (its model endpoint failed): the trial is
   * errored with this code (reward null, not verified), never scored 0. Details and agentFiles are still kept.
   */
  failure?: { code: string; message: string };
}

export interface TrialAgent {
  /** oracle, nop, openai, ... */
  readonly name: string;
  /** Model name for the record; the agent's name for model-free agents. */
  readonly model: string;
  /** What every trial container of the run must have mounted for this agent (a CLI agent's tree and sockets). */
  readonly containerMounts?: TrialContainerMounts;
  run(context: TrialAgentContext): Promise<TrialAgentOutcome>;
}
