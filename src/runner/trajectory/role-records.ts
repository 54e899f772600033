/**
 * One role's side of a rollout as a record of its own: the role's prompt, completion, events, tokens, reward and
 * group in the places a single-agent record has them. Training samples per role are buildSamples over these views
 * (each role's sampled tokens masked 1, the other roles' moves and the environment's text masked 0 as inserted tokens).
 */
import type { ResultRecord } from './result-record.js';

/** The record of every role in turn order; a single-agent record is its own only view. */
export function roleRecords(record: ResultRecord): ResultRecord[] {
  if (!record.roles) return [record];
  return record.roles.map((role) => {
    const { roles: _roles, ...shared } = record;
    return {
      ...shared,
      ...role.metrics,
      prompt: role.prompt,
      completion: role.completion,
      final_answer: role.final_answer,
      reward: role.reward,
      metrics: role.metrics,
      group: role.group,
      turns: role.turns,
      events: role.events,
      tokens: role.tokens,
      truncated: role.truncated,
      usage: role.usage,
      role: role.role,
    };
  });
}
