/**
 * One rollout: open the environment's tools (a fresh sandbox), let the agent work, score with the rubric, close.
 * Never throws: every failure becomes data on the record, blamed on one boundary. Tools are closed in `finally`,
 * so cancellation and crashes release the sandbox.
 */
import { CorralError } from '../../core/errors.js';
import type { Agent } from '../agents/agent.js';
import { agentPromptMessages } from '../agents/prompt-messages.js';
import type { Environment, Example } from '../contract/environment.js';
import type { ToolSessionFactory } from '../contract/tool-session.js';
import { scoreRubric } from '../rubrics/rubric.js';
import type { ResultRecord } from '../trajectory/result-record.js';
import { TRAJECTORY_VERSION } from '../trajectory/trajectory.js';
import { TrajectoryRecorder } from '../trajectory/trajectory-recorder.js';
import { describeFailure } from './rollout-error.js';

export interface RolloutInput {
  environment: Environment;
  agent: Agent;
  tools: ToolSessionFactory;
  example: Example;
  rolloutIndex: number;
  abortSignal: AbortSignal;
  seed?: number;
}

export async function runRollout(input: RolloutInput): Promise<ResultRecord> {
  const { environment, agent, example } = input;
  const recorder = new TrajectoryRecorder();
  const timeout = AbortSignal.timeout(environment.limits.rolloutTimeoutMs);
  const abortSignal = AbortSignal.any([input.abortSignal, timeout]);
  let generationMs = 0;
  let scoringMs = 0;
  let score: { reward: number; metrics: Record<string, number> } | null = null;
  let session;
  try {
    session = await input.tools.open({ abortSignal });
    const generationStart = performance.now();
    try {
      await agent.run({
        example,
        systemPrompt: environment.systemPrompt,
        tools: session,
        maxTurns: environment.maxTurns,
        recorder,
        abortSignal,
        rolloutIndex: input.rolloutIndex,
        seed: input.seed,
      });
    } catch (error) {
      recorder.fail(describeFailure(abortSignal.aborted ? abortReason(input.abortSignal, timeout) : error, 'model'));
    }
    generationMs = performance.now() - generationStart;
    if (!recorder.failure) {
      const scoringStart = performance.now();
      try {
        score = await scoreRubric(environment.rubric, { example, trajectory: recorder.snapshot(), tools: session, abortSignal });
      } catch (error) {
        recorder.fail(describeFailure(error, 'rubric'));
      }
      scoringMs = performance.now() - scoringStart;
    }
  } catch (error) {
    recorder.fail(describeFailure(error, 'sandbox'));
  } finally {
    await session?.close().catch(() => undefined);
  }
  // Whatever failed after a cancel or the rollout deadline (a tool call, the rubric) failed because of it: say so,
  // so cancelled rollouts are not written (--resume redoes them) and timeouts are blamed on the runner.
  if (recorder.failure && abortSignal.aborted) recorder.replaceFailure(describeFailure(abortReason(input.abortSignal, timeout), 'runner'));
  const reason = recorder.failure
    ? input.abortSignal.aborted
      ? 'cancelled'
      : 'errored'
    : recorder.snapshot().truncated
      ? 'truncated'
      : recorder.snapshot().answer === null
        ? 'max-turns'
        : 'answered';
  const trajectory = recorder.finish(reason);
  const metrics = score?.metrics ?? {};
  return {
    ...metrics,
    version: TRAJECTORY_VERSION,
    example_id: example.id,
    rollout_index: input.rolloutIndex,
    task: environment.name,
    prompt: agentPromptMessages(environment.systemPrompt, example),
    completion: trajectory.completion,
    answer: example.answer ?? null,
    final_answer: trajectory.answer,
    info: example.info ?? {},
    reward: score?.reward ?? null,
    metrics,
    group: null,
    error: trajectory.failure,
    turns: trajectory.turns,
    timing: { generation_ms: round(generationMs), scoring_ms: round(scoringMs), total_ms: recorder.now(), tool_calls: trajectory.toolCalls },
    events: trajectory.events,
    tokens: trajectory.tokens.length > 0 ? trajectory.tokens : null,
    truncated: trajectory.truncated === true,
    usage: trajectory.usage ?? null,
    attempts: 1,
  };
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;

function abortReason(cancel: AbortSignal, timeout: AbortSignal): CorralError {
  if (cancel.aborted) return new CorralError('RUNNER_ERR_CANCELLED', 'rollout cancelled');
  return new CorralError('RUNNER_ERR_TIMEOUT', `rollout exceeded its time limit (${timeout.reason instanceof Error ? timeout.reason.message : 'timeout'})`);
}
