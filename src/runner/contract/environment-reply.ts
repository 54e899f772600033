/**
 * Environments that talk back (docs/environments.md, "Environment replies"): after an assistant turn that calls no
 * tool, an environment with `respond` produces the next user message(s) or ends the episode. Games, tutoring and
 * simulated users are written this way; an environment without `respond` ends at the first answer as before.
 */
import type { ChatMessage } from '../trajectory/messages.js';
import type { UserModelCall } from '../trajectory/trajectory.js';
import type { RolloutContext } from './rollout-context.js';

export type { UserModelCall };

/**
 * What `respond` returns: more user turns (a string is one user message; user or system messages only), or the
 * end of the episode with an optional reason (recorded on the trajectory's environment-done event). `userCalls`:
 * the model calls made to produce it, when respond is a second model (simulatedUser fills it).
 */
export type EnvironmentReply = (
  { readonly done?: false; readonly messages: string | readonly ChatMessage[] } | { readonly done: true; readonly reason?: string }
) & { readonly userCalls?: readonly UserModelCall[] };

/** What `respond` sees: the rollout's context plus the conversation so far (system prompt and prompt included). */
export interface RespondContext<State = Record<string, unknown>, Args = Record<string, unknown>> extends RolloutContext<State, Args> {
  readonly messages: readonly ChatMessage[];
  /** Assistant turns taken so far in this rollout (all roles together, in an environment with roles). */
  readonly turn: number;
  /**
   * In an environment with roles: the role that just took its turn (`messages` is its side of the conversation), and
   * the role the reply goes to, as its next user message(s). Undefined in a single-agent environment.
   */
  readonly role?: string;
  readonly nextRole?: string;
}
