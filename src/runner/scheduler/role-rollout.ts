/**
 * One rollout of an environment with roles: the same lifecycle as runRollout (open, setup once, play, score, cleanup
 * always, close; never throws), with one agent and one trajectory per role and the rubric run once per role. Any
 * failure errors the whole rollout: no role is scored when the game did not finish properly.
 * The record's top-level fields are the first role's; `roles` holds every role's (result-record.ts).
 */
import type { EnvironmentRollout } from '../contract/environment-rollout.js';
import type { ResultRecord, RoleResult } from '../trajectory/result-record.js';
import { TRAJECTORY_VERSION, type UserModelCall } from '../trajectory/trajectory.js';
import { type ReplyEnding } from './environment-replies.js';
import { playRoles, rolePlayers } from './role-turns.js';
import { describeFailure } from './rollout-error.js';
import { abortReason, endReason, hasTokenData, roundMs } from './rollout-parts.js';
import type { RolloutInput } from './run-rollout.js';
import { openRolloutWithSetup } from './open-rollout.js';

type Score = { reward: number; metrics: Record<string, number>; answer: string | null };

export async function runRoleRollout(input: RolloutInput, roles: readonly string[]): Promise<ResultRecord> {
  const { environment, example } = input;
  const players = rolePlayers(roles, (role) => input.roleAgents?.[role] ?? input.agent);
  const first = players[0]!;
  const timeout = AbortSignal.timeout(environment.limits.rolloutTimeoutMs);
  const abortSignal = AbortSignal.any([input.abortSignal, timeout]);
  const failure = () => players.find((player) => player.recorder.failure)?.recorder.failure ?? null;
  let generationMs = 0;
  let scoringMs = 0;
  let scores: Score[] | null = null;
  let replyEnding: ReplyEnding | null = null;
  let rollout: EnvironmentRollout | undefined;
  try {
    const started = await openRolloutWithSetup(input, example, abortSignal, (failure) => first.recorder.fail(failure));
    rollout = started.rollout;
    const opened = started.rollout;
    const setupDone = started.setupDone;
    const generationStart = performance.now();
    if (setupDone) {
      replyEnding = await playRoles({
        rollout: opened,
        players,
        example,
        systemPrompt: environment.systemPrompt,
        maxTurns: environment.maxTurns,
        rolloutIndex: input.rolloutIndex,
        ...(input.seed === undefined ? {} : { seed: input.seed }),
        abortSignal,
        abortError: () => abortReason(input.abortSignal, timeout),
      });
      generationMs = performance.now() - generationStart;
    }
    if (!failure()) {
      const scoringStart = performance.now();
      const scored: Score[] = [];
      for (const player of players) {
        try {
          scored.push(await opened.score({ trajectory: player.recorder.snapshot(), role: player.role }, { abortSignal }));
        } catch (error) {
          player.recorder.fail(describeFailure(error, 'rubric'));
          break;
        }
      }
      scores = failure() ? null : scored;
      scoringMs = performance.now() - scoringStart;
    }
  } catch (error) {
    first.recorder.fail(describeFailure(error, 'sandbox'));
  } finally {
    const cleanupFailure = await rollout?.close();
    if (cleanupFailure) {
      first.recorder.fail(describeFailure(cleanupFailure, 'environment'));
      scores = null;
    }
  }
  if (failure() && abortSignal.aborted) {
    for (const player of players)
      if (player.recorder.failure) player.recorder.replaceFailure(describeFailure(abortReason(input.abortSignal, timeout), 'runner'));
  }
  const rolloutFailure = failure();
  const results: RoleResult[] = players.map((player, index) => {
    const trajectory = player.recorder.finish(
      endReason({
        failed: rolloutFailure !== null,
        cancelled: input.abortSignal.aborted,
        trajectory: player.recorder.snapshot(),
        stopped: false,
        replyEnding,
        responds: true,
      }),
    );
    const score = scores?.[index] ?? null;
    return {
      role: player.role,
      model: player.agent.model,
      prompt: player.prompt ?? [],
      completion: trajectory.completion,
      final_answer: score ? score.answer : trajectory.answer,
      reward: score?.reward ?? null,
      metrics: score?.metrics ?? {},
      group: null,
      turns: trajectory.turns,
      events: trajectory.events,
      tokens: hasTokenData(trajectory.tokens) ? trajectory.tokens : null,
      truncated: trajectory.truncated === true,
      usage: trajectory.usage ?? null,
    };
  });
  const lead = results[0]!;
  const userCalls: UserModelCall[] = players.flatMap((player) => player.recorder.snapshot().userCalls ?? []);
  return {
    ...lead.metrics,
    version: TRAJECTORY_VERSION,
    example_id: example.id,
    rollout_index: input.rolloutIndex,
    task: environment.name,
    prompt: lead.prompt,
    completion: lead.completion,
    answer: example.answer ?? null,
    final_answer: lead.final_answer,
    info: example.info ?? {},
    reward: lead.reward,
    metrics: lead.metrics,
    group: null,
    error: rolloutFailure,
    turns: lead.turns,
    timing: {
      generation_ms: roundMs(generationMs),
      scoring_ms: roundMs(scoringMs),
      total_ms: first.recorder.now(),
      tool_calls: players.flatMap((player) => player.recorder.snapshot().toolCalls),
    },
    events: lead.events,
    tokens: lead.tokens,
    truncated: lead.truncated,
    usage: lead.usage,
    ...(userCalls.length > 0 ? { user_calls: userCalls, user_usage: sumUsage(players.map((player) => player.recorder.snapshot().userUsage ?? null)) } : {}),
    roles: results,
    attempts: 1,
  };
}

function sumUsage(usages: readonly (ResultRecord['usage'] | null)[]): ResultRecord['usage'] {
  const present = usages.filter((usage) => usage !== null && usage !== undefined);
  if (present.length === 0) return null;
  return present.reduce((total, usage) => ({
    prompt_tokens: total!.prompt_tokens + usage!.prompt_tokens,
    completion_tokens: total!.completion_tokens + usage!.completion_tokens,
  }));
}
