/**
 * Scripted models for CI (`npm run examples customer-service`), on one scripted model server told apart by model
 * name: 'customer' plays the user from the hidden details in its system prompt; 'agent' asks for them, looks the
 * account up and changes the plan; 'careless' changes an account without asking (the rubric gives it 0).
 */
import type { ChatMessage } from 'corral';
import type { ModelReply, ModelScript } from 'corral/testing';

const text = (content: string): ModelReply => ({ kind: 'text', content });
const call = (name: string, args: Record<string, unknown>): ModelReply => ({ kind: 'tool-calls', toolCalls: [{ name, arguments: args }] });

export const customerServiceModels: ModelScript = (request) => {
  const messages = request.messages;
  if (request.model === 'customer') return customer(messages);
  if (request.model === 'careless') {
    return messages.some((message) => message.role === 'tool')
      ? text('Done, your plan is changed.')
      : call('change_plan', { account_id: 'A-1001', plan: 'family' });
  }
  return agent(messages);
};

/** The customer sees the agent's words as 'user' turns (simulatedUser swaps roles) and its details in the system prompt. */
function customer(messages: readonly ChatMessage[]): ModelReply {
  const system = messages[0]?.content ?? '';
  const details = JSON.parse(system.slice(system.indexOf('{'))) as { account_id: string; name: string; wants: string };
  const agentSaid = [...messages].reverse().find((message) => message.role === 'user')?.content ?? '';
  if (/account/i.test(agentSaid) && /\?/.test(agentSaid)) return text(`My account id is ${details.account_id} and I would like the ${details.wants} plan.`);
  if (/now on the|changed/i.test(agentSaid)) return text('Thank you, that is all. ###STOP###');
  return text('Could you help me change my plan?');
}

/** Ask, look up, change, confirm: each step decided from the conversation so far. */
function agent(messages: readonly ChatMessage[]): ModelReply {
  const last = messages.at(-1)!;
  const request = [...messages].reverse().find((message) => message.role === 'user' && /account id is/.test(message.content ?? ''));
  const account = /A-\d{4}/.exec(request?.content ?? '')?.[0];
  const plan = /(monthly|yearly|family) plan/.exec(request?.content ?? '')?.[1];
  if (last.role === 'tool' && /plan \w+$/.test(last.content)) return call('change_plan', { account_id: account, plan });
  if (last.role === 'tool') return text(`All set: ${last.content}.`);
  if (account && plan && last === request) return call('find_account', { account_id: account });
  return text('Happy to help. What is your account id, and which plan would you like?');
}
