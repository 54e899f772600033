/**
 * Who plays in each of the battery's runs, and whose reward the run measures. An environment without roles has one
 * lineup: the agent alone. An environment with roles (a game, a debate) is measured one role at a time: role R's
 * oracle plays R against the do-nothing floor in every other role, and the floor plays R against the other roles'
 * oracles. So in a zero-sum game each role's oracle must beat doing nothing, and doing nothing must lose to the
 * oracle, whichever side it sits on; the records are read as role R's (its reward, its answer).
 */
import type { Agent } from '../runner/agents/agent.js';
import type { ResultRecord } from '../runner/trajectory/result-record.js';

export interface Lineup {
  /** The role whose reward this run measures; null in an environment without roles. */
  measured: string | null;
  /** The agent of an environment without roles; in one with roles, the first role's (refusals look at it). */
  agent: Agent;
  /** Environments with roles: the agent of every role. */
  roleAgents?: Record<string, Agent>;
}

/** The agent that plays `role` in each role of `roles`, the other roles played by `others(role)`. */
function cast(roles: readonly string[], measured: string, player: Agent, other: (role: string) => Agent): Lineup {
  const roleAgents = Object.fromEntries(roles.map((role) => [role, role === measured ? player : other(role)]));
  return { measured, agent: roleAgents[roles[0]!]!, roleAgents };
}

/** The oracle's lineups: the oracle alone, or each role's oracle against the floor in the other roles. */
export function oracleLineups(roles: readonly string[] | undefined, oracle: Agent, roleOracles: Readonly<Record<string, Agent>>, floor: Agent): Lineup[] {
  if (!roles) return [{ measured: null, agent: oracle }];
  return roles.map((role) => cast(roles, role, roleOracles[role] ?? oracle, () => floor));
}

/** The floor's lineups: the floor alone, or the floor in each role against the other roles' oracles. */
export function floorLineups(roles: readonly string[] | undefined, oracle: Agent, roleOracles: Readonly<Record<string, Agent>>, floor: Agent): Lineup[] {
  if (!roles) return [{ measured: null, agent: floor }];
  return roles.map((role) => cast(roles, role, floor, (other) => roleOracles[other] ?? oracle));
}

/** The example id as the checks list it: with the measured role, so `pile-5 (second)` tells the seats apart. */
export const measuredId = (exampleId: string, role: string | null): string => (role === null ? exampleId : `${exampleId} (${role})`);

/** The records as the measured role's: its reward and final answer, the example id labelled with the role. */
export function measuredRecords(records: readonly ResultRecord[], role: string | null): ResultRecord[] {
  if (role === null) return [...records];
  return records.map((record) => {
    const result = record.roles?.find((each) => each.role === role);
    return { ...record, example_id: measuredId(record.example_id, role), reward: result?.reward ?? null, final_answer: result?.final_answer ?? null };
  });
}
