/**
 * Asks an episode's environment for its reply after an assistant turn without tool calls (its `respond`), for the
 * step API. The runner's own call of `respond` (the agent loop, branch h/talk) is being written beside this; once it
 * lands in runner/, the step API should call that one and this file goes.
 */
import { CorralError } from '../../core/errors.js';
import type { Environment } from '../../runner/contract/environment.js';
import type { EnvironmentRollout } from '../../runner/contract/environment-rollout.js';
import type { ChatMessage } from '../../runner/trajectory/messages.js';

export type CheckedReply = { done: true; reason: string | null } | { done: false; messages: ChatMessage[] };

/**
 * Without `respond`: done, reason null. Throws ENV_ERR_RESPOND_FAILED when respond throws or returns something that is
 * not an EnvironmentReply; sandbox and pool faults and cancellation pass as they are (they are not the environment's bug).
 */
export async function askEnvironment(
  environment: Environment,
  rollout: EnvironmentRollout,
  input: { messages: readonly ChatMessage[]; turn: number; abortSignal: AbortSignal },
): Promise<CheckedReply> {
  if (!environment.respond) return { done: true, reason: null };
  const fail = (message: string, cause?: unknown) =>
    new CorralError('ENV_ERR_RESPOND_FAILED', `environment ${environment.name}: ${message} (example ${rollout.example.id}, turn ${input.turn})`, {
      ...(cause === undefined ? {} : { cause }),
      details: { example: rollout.example.id, hook: 'respond', turn: input.turn },
    });
  let reply: unknown;
  try {
    reply = await environment.respond({
      example: rollout.example,
      state: rollout.state,
      envArgs: rollout.envArgs,
      sandbox: rollout.sandbox,
      abortSignal: input.abortSignal,
      messages: input.messages,
      turn: input.turn,
    } as Parameters<NonNullable<Environment['respond']>>[0]);
  } catch (error) {
    if (CorralError.isInstance(error) && (error.code === 'ERR_ABORTED' || /^(SBX|POOL)_/.test(error.code)) && error.audience !== 'caller') throw error;
    throw fail(`respond threw: ${(error as Error)?.message ?? String(error)}`, error);
  }
  const value = (typeof reply === 'object' && reply !== null ? reply : {}) as { done?: unknown; reason?: unknown; messages?: unknown };
  if (value.done === true) return { done: true, reason: typeof value.reason === 'string' ? value.reason : null };
  if (typeof value.messages === 'string') return { done: false, messages: [{ role: 'user', content: value.messages }] };
  if (!Array.isArray(value.messages) || value.messages.length === 0)
    throw fail(
      `respond returned ${JSON.stringify(reply) ?? String(reply)}; return { messages: 'text' | [{ role: 'user', content }] } or { done: true, reason? }`,
    );
  const messages = value.messages.map((message: unknown, index): ChatMessage => {
    const { role, content } = (message ?? {}) as { role?: unknown; content?: unknown };
    if ((role !== 'user' && role !== 'system') || typeof content !== 'string')
      throw fail(`respond's message ${index} is not { role: 'user' | 'system', content: string }`);
    return { role, content };
  });
  return { done: false, messages };
}
