/**
 * One line of results.jsonl, in the layout verifiers' vf-eval writes (example_id, prompt, completion, answer,
 * task, info, reward, one key per metric) plus corral's own fields (timings, error, tokens, group statistics).
 */
import type { ChatMessage, TokenUsage, TurnTokens } from './messages.js';
import type { RecordLineage } from './record-lineage.js';
import type { RolloutFailure, ToolCallTiming, TrajectoryEvent, UserModelCall } from './trajectory.js';
import { TRAJECTORY_VERSION } from './trajectory.js';

export interface ResultRecord {
  version: typeof TRAJECTORY_VERSION;
  example_id: string;
  rollout_index: number;
  task: string;
  prompt: ChatMessage[];
  completion: ChatMessage[];
  /** Gold answer from the dataset. */
  answer: unknown;
  /** The agent's final answer text. */
  final_answer: string | null;
  info: Record<string, unknown>;
  /** Weighted sum of the rubric; null when the rollout errored (errored is never scored 0). */
  reward: number | null;
  metrics: Record<string, number>;
  /** Over the example's scored rollouts; mean/std are null when every rollout of the group errored. */
  group: { mean: number | null; std: number | null; size: number; advantage: number | null } | null;
  error: RolloutFailure | null;
  turns: number;
  timing: { generation_ms: number; scoring_ms: number; total_ms: number; tool_calls: ToolCallTiming[] };
  events: TrajectoryEvent[];
  tokens: TurnTokens[] | null;
  /** A model reply hit its token limit (finish_reason "length"). */
  truncated: boolean;
  /** Token counts the endpoint reported, summed over the rollout; null when it reported none. */
  usage: TokenUsage | null;
  /**
   * The environment's own model calls (a simulated user: docs/environments.md), absent when it made none; their
   * cost is `user_usage`, never counted in `usage` and never in training samples.
   */
  user_calls?: UserModelCall[];
  user_usage?: TokenUsage | null;
  attempts: number;
  /** Set when live canaries quarantined the example (runner/run/canaries/): its oracle failed or its floor scored. */
  quarantine?: { example_id: string; reasons: string[]; oracle_reward: number | null; floor_reward: number | null; oracle_error: string | null };
  /** A re-scored, replayed or forked record: its source run and record, or parent episode (record-lineage.ts). */
  lineage?: RecordLineage;
  /**
   * An environment with roles (docs/environments.md, "Several agents (roles)"): one entry per role in turn order, each
   * with its own trajectory, reward, samples' tokens and group statistics. The top-level prompt, completion, events,
   * tokens, reward, metrics and group are the first role's, so readers that know one agent keep working. Absent
   * for single-agent environments.
   */
  roles?: RoleResult[];
  /** Metric values are also spread as top-level keys, as vf-eval writes them. */
  [metric: string]: unknown;
}

/** One role's side of a rollout of an environment with roles. */
export interface RoleResult {
  role: string;
  /** The model (agent) that played the role. */
  model: string;
  prompt: ChatMessage[];
  completion: ChatMessage[];
  final_answer: string | null;
  /** The rubric's reward for this role; null when the rollout errored. */
  reward: number | null;
  metrics: Record<string, number>;
  /** Over the example's scored rollouts, this role's rewards only. */
  group: ResultRecord['group'];
  turns: number;
  events: TrajectoryEvent[];
  tokens: TurnTokens[] | null;
  truncated: boolean;
  usage: TokenUsage | null;
}

export const resultKey = (exampleId: string, rolloutIndex: number) => `${exampleId}#${rolloutIndex}`;
