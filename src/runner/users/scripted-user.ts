/**
 * `scriptedUser`: a respond that plays a user from a script, for tests and CI (no model). A list gives the user's
 * replies in order (the n-th answer of the agent gets the n-th entry; past the end the conversation is done, reason
 * 'script-ended'); a function decides each reply from the context. Entries are a message or a whole EnvironmentReply.
 */
import type { EnvironmentReply, RespondContext } from '../contract/environment-reply.js';

export type ScriptedUserReply = string | EnvironmentReply;

export type ScriptedUserScript<State = Record<string, unknown>, Args = Record<string, unknown>> =
  readonly ScriptedUserReply[] | ((context: RespondContext<State, Args>) => ScriptedUserReply | Promise<ScriptedUserReply>);

export function scriptedUser<State = Record<string, unknown>, Args = Record<string, unknown>>(
  script: ScriptedUserScript<State, Args>,
): (context: RespondContext<State, Args>) => Promise<EnvironmentReply> {
  return async (context) => {
    const entry = typeof script === 'function' ? await script(context) : script[answersSoFar(context) - 1];
    if (entry === undefined) return { done: true, reason: 'script-ended' };
    return typeof entry === 'string' ? { messages: entry } : entry;
  };
}

/** The agent's answers so far (assistant turns without tool calls), counted from the conversation: no per-rollout state here. */
function answersSoFar(context: RespondContext<unknown, unknown>): number {
  return context.messages.filter((message) => message.role === 'assistant' && !(message.tool_calls && message.tool_calls.length > 0)).length;
}
