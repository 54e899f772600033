/**
 * An ended episode as a result record (GET /v1/episodes/<id>/record): the layout `corral eval` writes to results.jsonl,
 * so the one sample builder, the exporters and the viewer read it as any rollout's. Token data is what the trainer
 * stepped with each turn; a forked episode's record carries its lineage (the parent episode and the turn it forked at).
 */
import type { Environment, Example } from '../../runner/contract/environment.js';
import { describeFailure } from '../../runner/scheduler/rollout-error.js';
import { hasTokenData, roundMs } from '../../runner/scheduler/rollout-parts.js';
import type { ChatMessage } from '../../runner/trajectory/messages.js';
import type { RecordLineage } from '../../runner/trajectory/record-lineage.js';
import type { ResultRecord } from '../../runner/trajectory/result-record.js';
import { TRAJECTORY_VERSION, type Trajectory } from '../../runner/trajectory/trajectory.js';

export interface EpisodeRecordInput {
  environment: Pick<Environment, 'name'>;
  example: Example;
  prompt: readonly ChatMessage[];
  trajectory: Trajectory;
  /** How a step ended the episode (null when a fault errored it). */
  ending: { reward: number; metrics: Record<string, number>; answer: string | null } | null;
  /** What errored the episode (null when it ended normally). */
  failure: unknown;
  totalMs: number;
  lineage: RecordLineage | undefined;
}

export function episodeRecord(input: EpisodeRecordInput): ResultRecord {
  const { trajectory, ending, example } = input;
  const scored = input.failure === null ? ending : null;
  const metrics = scored?.metrics ?? {};
  const scoringMs = trajectory.events.reduce((sum, event) => sum + (event.type === 'score' ? event.durationMs : 0), 0);
  return {
    ...metrics,
    version: TRAJECTORY_VERSION,
    example_id: example.id,
    rollout_index: 0,
    task: input.environment.name,
    prompt: [...input.prompt],
    completion: trajectory.completion,
    answer: example.answer ?? null,
    final_answer: scored ? scored.answer : trajectory.answer,
    info: example.info ?? {},
    reward: scored?.reward ?? null,
    metrics,
    group: null,
    // Steps errored by a fault carry its code; the boundary follows the code (a sandbox fault, the rubric, respond).
    error: input.failure === null ? null : describeFailure(input.failure, 'environment'),
    turns: trajectory.turns,
    // The trainer's model ran on its side: generation time is not corral's to measure.
    timing: { generation_ms: 0, scoring_ms: roundMs(scoringMs), total_ms: input.totalMs, tool_calls: trajectory.toolCalls },
    events: trajectory.events,
    tokens: hasTokenData(trajectory.tokens) ? trajectory.tokens : null,
    truncated: false,
    usage: null,
    ...(trajectory.userCalls && trajectory.userCalls.length > 0 ? { user_calls: trajectory.userCalls, user_usage: trajectory.userUsage ?? null } : {}),
    attempts: 1,
    ...(input.lineage ? { lineage: input.lineage } : {}),
  };
}
