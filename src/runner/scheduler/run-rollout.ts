/**
 * One rollout: open the environment rollout (its tools and, lazily, a fresh sandbox), run its setup, let the agent
 * work until it answers (or, in an environment that answers turns, until its reply says done), a stop predicate
 * holds or maxTurns, score with the rubric, then cleanup and close.
 * Never throws: every failure becomes data on the record, blamed on one boundary. A failing setup errors the
 * rollout (boundary 'environment') and the agent never runs. close() runs in `finally`, so cleanup always runs and
 * cancellation and crashes release the sandbox.
 */
import type { Agent } from '../agents/agent.js';
import { agentPromptMessages } from '../agents/prompt-messages.js';
import type { Environment, Example } from '../contract/environment.js';
import type { EnvironmentRollout, EnvironmentRolloutFactory } from '../contract/environment-rollout.js';
import type { ToolSessionFactory } from '../contract/tool-session.js';
import type { ResultRecord } from '../trajectory/result-record.js';
import { TRAJECTORY_VERSION } from '../trajectory/trajectory.js';
import { TrajectoryRecorder } from '../trajectory/trajectory-recorder.js';
import { type ReplyEnding, environmentReplyOf } from './environment-replies.js';
import { runRoleRollout } from './role-rollout.js';
import { describeFailure } from './rollout-error.js';
import { abortReason, endReason, hasTokenData, roundMs } from './rollout-parts.js';
import { openRolloutWithSetup } from './open-rollout.js';

export interface RolloutInput {
  environment: Environment;
  agent: Agent;
  /** Opens the rollout's environment session (tools, sandbox, setup, scoring); corral eval passes environmentRolloutFactory. */
  rollouts?: EnvironmentRolloutFactory;
  /** Instead of `rollouts`, for environments of toolsets, dataset and rubric only (e.g. tools on a remote MCP server). */
  tools?: ToolSessionFactory;
  example: Example;
  rolloutIndex: number;
  abortSignal: AbortSignal;
  seed?: number;
  /** In an environment with roles: the agent of each role; a role not named here is played by `agent` (self-play). */
  roleAgents?: Readonly<Record<string, Agent>>;
}

export async function runRollout(input: RolloutInput): Promise<ResultRecord> {
  const { environment, agent, example } = input;
  if (environment.roles) return runRoleRollout(input, environment.roles);
  const recorder = new TrajectoryRecorder();
  const timeout = AbortSignal.timeout(environment.limits.rolloutTimeoutMs);
  const abortSignal = AbortSignal.any([input.abortSignal, timeout]);
  let generationMs = 0;
  let scoringMs = 0;
  let score: { reward: number; metrics: Record<string, number>; answer: string | null } | null = null;
  let rollout: EnvironmentRollout | undefined;
  let stopped = false;
  let replyEnding: ReplyEnding | null = null;
  const prompt = agentPromptMessages(environment.systemPrompt, example);
  try {
    const started = await openRolloutWithSetup(input, example, abortSignal, (failure) => recorder.fail(failure));
    rollout = started.rollout;
    const opened = started.rollout;
    const setupDone = started.setupDone;
    const generationStart = performance.now();
    if (setupDone) {
      try {
        await agent.run({
          example,
          systemPrompt: environment.systemPrompt,
          tools: opened.tools,
          maxTurns: environment.maxTurns,
          recorder,
          abortSignal,
          rolloutIndex: input.rolloutIndex,
          seed: input.seed,
          ...(environment.stopWhen.length > 0 ? { shouldStop: () => (stopped = opened.shouldStop(recorder.snapshot())) } : {}),
          ...(opened.responds
            ? { environmentReply: environmentReplyOf({ rollout: opened, recorder, prompt, abortSignal, onEnd: (ending) => (replyEnding = ending) }) }
            : {}),
          // An agent that runs inside the sandbox gets the rollout's own: the one its tools, hooks and rubric use.
          ...(agent.sandboxNeeds ? { sandbox: { session: opened.sandbox, socketsDirectory: opened.agentSocketsDirectory ?? null } } : {}),
        });
      } catch (error) {
        recorder.fail(describeFailure(abortSignal.aborted ? abortReason(input.abortSignal, timeout) : error, 'model'));
      }
    }
    generationMs = setupDone ? performance.now() - generationStart : 0;
    if (!recorder.failure) {
      const scoringStart = performance.now();
      try {
        score = await opened.score({ trajectory: recorder.snapshot() }, { abortSignal });
      } catch (error) {
        recorder.fail(describeFailure(error, 'rubric'));
      }
      scoringMs = performance.now() - scoringStart;
    }
  } catch (error) {
    recorder.fail(describeFailure(error, 'sandbox'));
  } finally {
    const cleanupFailure = await rollout?.close();
    if (cleanupFailure) {
      recorder.fail(describeFailure(cleanupFailure, 'environment'));
      // A rollout whose cleanup failed is errored, and errored rollouts are never scored.
      score = null;
    }
  }
  // Whatever failed after a cancel or the rollout deadline (a tool call, the rubric) failed because of it: say so,
  // so cancelled rollouts are not written (--resume redoes them) and timeouts are blamed on the runner.
  if (recorder.failure && abortSignal.aborted) recorder.replaceFailure(describeFailure(abortReason(input.abortSignal, timeout), 'runner'));
  const reason = endReason({
    failed: recorder.failure !== null,
    cancelled: input.abortSignal.aborted,
    trajectory: recorder.snapshot(),
    stopped,
    replyEnding,
    responds: environment.respond !== undefined,
  });
  const trajectory = recorder.finish(reason);
  const metrics = score?.metrics ?? {};
  return {
    ...metrics,
    version: TRAJECTORY_VERSION,
    example_id: example.id,
    rollout_index: input.rolloutIndex,
    task: environment.name,
    prompt,
    completion: trajectory.completion,
    answer: example.answer ?? null,
    final_answer: score ? score.answer : trajectory.answer,
    info: example.info ?? {},
    reward: score?.reward ?? null,
    metrics,
    group: null,
    error: trajectory.failure,
    turns: trajectory.turns,
    timing: { generation_ms: roundMs(generationMs), scoring_ms: roundMs(scoringMs), total_ms: recorder.now(), tool_calls: trajectory.toolCalls },
    events: trajectory.events,
    tokens: hasTokenData(trajectory.tokens) ? trajectory.tokens : null,
    truncated: trajectory.truncated === true,
    usage: trajectory.usage ?? null,
    ...(trajectory.userCalls && trajectory.userCalls.length > 0 ? { user_calls: trajectory.userCalls, user_usage: trajectory.userUsage ?? null } : {}),
    attempts: 1,
  };
}
