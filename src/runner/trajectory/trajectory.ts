/**
 * What one rollout produced. Events use one noun-verb vocabulary; failures are recorded once, blamed on one
 * boundary. Versioned because trajectories cross process boundaries (results.jsonl, the rollout API).
 */
import type { ChatMessage, TokenUsage, TurnTokens } from './messages.js';

export const TRAJECTORY_VERSION = 1 as const;

/** 'environment': the environment's own code failed (setup, cleanup, state(), a stop predicate), never the agent's answer. */
export type FailureBoundary = 'model' | 'tool' | 'sandbox' | 'rubric' | 'runner' | 'environment';

export interface RolloutFailure {
  boundary: FailureBoundary;
  /** Stable code, e.g. POOL_ERR_ACQUIRE_TIMEOUT, MODEL_ERR_HTTP_500. */
  code: string;
  message: string;
  transient: boolean;
}

export type TrajectoryEvent =
  | { type: 'episode-start'; atMs: number }
  | { type: 'step-start'; atMs: number; turn: number }
  | { type: 'model-response'; atMs: number; turn: number; durationMs: number }
  | { type: 'tool-call'; atMs: number; turn: number; callId: string; name: string }
  | { type: 'tool-result'; atMs: number; callId: string; durationMs: number; isError: boolean }
  | { type: 'tool-error'; atMs: number; callId: string; durationMs: number; code: string; message: string }
  | { type: 'score'; atMs: number; durationMs: number; reward: number }
  /** The environment's reply after `turn`: completion[messageIndex .. messageIndex + count) are its messages, not the model's. */
  | { type: 'environment-reply'; atMs: number; turn: number; messageIndex: number; count: number }
  /** The environment's respond ended the episode after `turn`, with the reason it gave (null: none). */
  | { type: 'environment-done'; atMs: number; turn: number; reason: string | null }
  | { type: 'episode-end'; atMs: number; reason: EpisodeEndReason };

/**
 * 'truncated': the model's last reply stopped at its token limit (finish_reason "length"); 'stopped': one of the
 * environment's stop predicates held after a turn; 'done': the environment's respond ended the episode (its reason is
 * on the environment-done event).
 */
export type EpisodeEndReason = 'answered' | 'truncated' | 'max-turns' | 'stopped' | 'done' | 'errored' | 'cancelled';

/**
 * One call the environment's reply made to a model of its own (a simulated user's turn): on the record beside the
 * agent's trajectory (`user_calls`, usage summed in `user_usage`), never in the completion or the training samples.
 */
export interface UserModelCall {
  model: string;
  /** What the model said, before any stop marker was taken out. */
  content: string;
  /** Null when the endpoint reported no usage. */
  usage: TokenUsage | null;
  durationMs: number;
}

export interface ToolCallTiming {
  callId: string;
  name: string;
  turn: number;
  durationMs: number;
  isError: boolean;
}

export interface Trajectory {
  /** The messages the agent produced after the prompt (assistant turns, tool results). */
  completion: ChatMessage[];
  /** The final answer text, when the agent gave one. */
  answer: string | null;
  events: TrajectoryEvent[];
  toolCalls: ToolCallTiming[];
  turns: number;
  /** Per model turn, when the server returned token ids / logprobs. */
  tokens: TurnTokens[];
  failure: RolloutFailure | null;
  /**
   * A model reply was cut at its token limit (finish_reason "length"); the agent stopped there. Rubrics see it and
   * decide; by default the rollout is scored like any other, as verifiers does.
   */
  truncated?: boolean;
  /** Summed over the model turns; null when the endpoint reported no usage. */
  usage?: TokenUsage | null;
  /** The environment's own model calls (a simulated user), in order; never part of `completion`, `tokens` or `usage`. */
  userCalls?: UserModelCall[];
  /** Summed over userCalls; null when they reported no usage (or there were none). */
  userUsage?: TokenUsage | null;
}
