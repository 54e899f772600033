/**
 * The environment's replies inside a rollout, written once for every agent that takes them: the agent asks after a
 * turn without tool calls, and this records the reply in the trajectory (its boundary as an environment-reply event,
 * a simulated user's calls apart from the agent's) and says whether the episode goes on. Agents that cannot continue
 * a conversation are refused before the first rollout.
 */
import { CorralError } from '../../core/errors.js';
import type { Agent, AgentEnvironmentTurn } from '../agents/agent.js';
import type { Environment } from '../contract/environment.js';
import type { EnvironmentRollout } from '../contract/environment-rollout.js';
import type { ChatMessage } from '../trajectory/messages.js';
import type { TrajectoryRecorder } from '../trajectory/trajectory-recorder.js';

/** How the replies ended the episode: the environment said done, or a stop predicate held after a reply. */
export type ReplyEnding = 'done' | 'stopped';

export interface EnvironmentReplyOptions {
  rollout: EnvironmentRollout;
  recorder: TrajectoryRecorder;
  /** The prompt the agent started from (system prompt and example), which respond sees before the completion. */
  prompt: readonly ChatMessage[];
  abortSignal: AbortSignal;
  onEnd(ending: ReplyEnding): void;
}

/** AgentRunInput.environmentReply for one rollout. */
export function environmentReplyOf(options: EnvironmentReplyOptions): () => Promise<AgentEnvironmentTurn> {
  const { rollout, recorder } = options;
  const end = (ending: ReplyEnding): AgentEnvironmentTurn => {
    options.onEnd(ending);
    return { done: true };
  };
  return async () => {
    const turn = recorder.turns;
    // A predicate over the answer (answerParses) ends the episode before the environment is asked.
    if (rollout.shouldStop(recorder.snapshot())) return end('stopped');
    const messages = [...options.prompt, ...recorder.snapshot().completion];
    const reply = await rollout.respond({ messages, turn }, { abortSignal: options.abortSignal });
    recorder.userCalls(reply.userCalls);
    if (reply.done) {
      recorder.environmentDone(turn, reply.reason);
      return end('done');
    }
    recorder.environmentReply(reply.messages, turn);
    // respond may have changed the state (a game that scored the guess): predicates over the state hold now.
    if (rollout.shouldStop(recorder.snapshot())) return end('stopped');
    return { done: false, messages: reply.messages };
  };
}

/** Throws ENV_ERR_REPLIES_UNSUPPORTED when the environment answers turns and the agent cannot continue after a reply. */
export function refuseAgentWithoutReplies(environment: Environment, agent: Agent): void {
  if (!environment.respond || agent.takesEnvironmentReplies === true) return;
  throw new CorralError(
    'ENV_ERR_REPLIES_UNSUPPORTED',
    `environment ${environment.name} answers turns itself (respond), and agent ${agent.name} cannot continue a conversation after such a reply; use --agent openai --model M --base-url U, or a ScriptedAgent in tests`,
    { details: { environment: environment.name, agent: agent.name } },
  );
}
