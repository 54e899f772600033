/**
 * Calls an environment's `respond` and checks what it returned, for every place a reply is asked for (the rollout's
 * agent loop here, the step API of episodes). A reply that is not an EnvironmentReply is the environment's bug, caught
 * here with a message saying what to return, rather than a confusing failure in the agent or the chat template.
 */
import { CorralError } from '../../core/errors.js';
import type { Environment } from '../contract/environment.js';
import type { CheckedEnvironmentReply } from '../contract/environment-rollout.js';
import type { RespondContext, UserModelCall } from '../contract/environment-reply.js';
import type { ChatMessage } from '../trajectory/messages.js';

const NO_REPLY: CheckedEnvironmentReply = Object.freeze({ done: true, reason: null, userCalls: Object.freeze([]) });

/** Runs respond with `context`; throws ENV_ERR_RESPOND_FAILED for a throw or a malformed reply (sandbox faults pass as they are). */
export async function callRespond(environment: Environment, context: RespondContext<unknown, unknown>): Promise<CheckedEnvironmentReply> {
  const respond = environment.respond;
  if (!respond) return NO_REPLY;
  let reply: unknown;
  try {
    reply = await respond.call(environment, context);
  } catch (error) {
    // A sandbox that died under respond is infrastructure, as for setup and cleanup.
    if (CorralError.isInstance(error) && (error.code.startsWith('SBX_') || error.code.startsWith('POOL_')) && error.audience === 'infrastructure') throw error;
    if (CorralError.isInstance(error) && error.code === 'ERR_ABORTED') throw error;
    const code = CorralError.isInstance(error) ? ` (${error.code})` : '';
    throw failed(environment, context, `respond threw${code}: ${(error as Error)?.message ?? String(error)}`, error);
  }
  return checkReply(environment, context, reply);
}

function checkReply(environment: Environment, context: RespondContext<unknown, unknown>, reply: unknown): CheckedEnvironmentReply {
  if (typeof reply !== 'object' || reply === null)
    throw failed(environment, context, `respond returned ${JSON.stringify(reply) ?? String(reply)}; return { messages: 'text' } or { done: true, reason? }`);
  const value = reply as { done?: unknown; reason?: unknown; messages?: unknown; userCalls?: unknown };
  const userCalls = checkUserCalls(environment, context, value.userCalls);
  if (value.done === true) {
    if (value.reason !== undefined && typeof value.reason !== 'string')
      throw failed(environment, context, 'respond returned { done: true, reason } with a reason that is not a string');
    return { done: true, reason: value.reason ?? null, userCalls };
  }
  if (value.done !== undefined && value.done !== false)
    throw failed(environment, context, `respond returned done: ${JSON.stringify(value.done)}; done is true or absent`);
  const messages: ChatMessage[] =
    typeof value.messages === 'string' ? [{ role: 'user', content: value.messages }] : checkMessages(environment, context, value.messages);
  return { done: false, messages, userCalls };
}

/** User or system messages with text content, at least one: an assistant or tool message here would be trained on or break the template. */
function checkMessages(environment: Environment, context: RespondContext<unknown, unknown>, messages: unknown): ChatMessage[] {
  if (!Array.isArray(messages) || messages.length === 0)
    throw failed(environment, context, 'respond returned no messages; return { messages: "text" | [{ role: "user", content }] } or { done: true }');
  return messages.map((message: unknown, index) => {
    const { role, content } = (message ?? {}) as { role?: unknown; content?: unknown };
    if ((role !== 'user' && role !== 'system') || typeof content !== 'string')
      throw failed(environment, context, `respond's message ${index} is not { role: 'user' | 'system', content: string } (got role ${JSON.stringify(role)})`);
    return { role, content };
  });
}

function checkUserCalls(environment: Environment, context: RespondContext<unknown, unknown>, calls: unknown): readonly UserModelCall[] {
  if (calls === undefined) return [];
  if (!Array.isArray(calls) || !calls.every((call) => typeof call === 'object' && call !== null && typeof (call as UserModelCall).content === 'string'))
    throw failed(environment, context, 'respond returned userCalls that are not a list of { model, content, usage, durationMs }');
  return calls as UserModelCall[];
}

function failed(environment: Environment, context: RespondContext<unknown, unknown>, message: string, cause?: unknown): CorralError {
  return new CorralError('ENV_ERR_RESPOND_FAILED', `environment ${environment.name}: ${message} (example ${context.example.id}, turn ${context.turn})`, {
    ...(cause === undefined ? {} : { cause }),
    details: { example: context.example.id, hook: 'respond', turn: context.turn },
  });
}
