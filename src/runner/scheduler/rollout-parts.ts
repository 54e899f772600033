/** Small pieces every rollout record is made with, for one agent (run-rollout.ts) or several (role-rollout.ts). */
import { CorralError } from '../../core/errors.js';
import type { TurnTokens } from '../trajectory/messages.js';
import type { EpisodeEndReason, Trajectory } from '../trajectory/trajectory.js';

export const roundMs = (ms: number) => Math.round(ms * 1000) / 1000;

/** Why a rollout's signal fired: a cancel or its own deadline. */
export function abortReason(cancel: AbortSignal, timeout: AbortSignal): CorralError {
  if (cancel.aborted) return new CorralError('RUNNER_ERR_CANCELLED', 'rollout cancelled');
  return new CorralError('RUNNER_ERR_TIMEOUT', `rollout exceeded its time limit (${timeout.reason instanceof Error ? timeout.reason.message : 'timeout'})`);
}

/** Null tokens mean the server sent none at all; entries without data mark the turns that lacked them. */
export const hasTokenData = (tokens: readonly TurnTokens[]) =>
  tokens.some((entry) => entry.prompt_token_ids !== undefined || entry.completion_token_ids !== undefined || entry.completion_logprobs !== undefined);

/** How an episode ended, from what the rollout saw (failure first, then truncation, then what ended the turns). */
export function endReason(input: {
  failed: boolean;
  cancelled: boolean;
  trajectory: Trajectory;
  stopped: boolean;
  replyEnding: 'done' | 'stopped' | null;
  responds: boolean;
}): EpisodeEndReason {
  if (input.failed) return input.cancelled ? 'cancelled' : 'errored';
  if (input.trajectory.truncated) return 'truncated';
  if (input.stopped || input.replyEnding === 'stopped') return 'stopped';
  if (input.replyEnding === 'done') return 'done';
  // An environment that answers turns was not ended by its reply: the agent ran out of turns.
  return input.responds || input.trajectory.answer === null ? 'max-turns' : 'answered';
}
