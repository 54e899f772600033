/**
 * GRPO-style group statistics over the rewards of one example's rollouts (errored rollouts excluded). A group
 * whose rollouts all errored has no statistics: mean and std are null, never 0 (0 would read as "all wrong").
 */
import type { ResultRecord } from '../trajectory/result-record.js';

export interface GroupStats {
  mean: number | null;
  std: number | null;
  size: number;
}

export function groupStats(rewards: readonly number[]): GroupStats {
  if (rewards.length === 0) return { mean: null, std: null, size: 0 };
  const mean = rewards.reduce((sum, reward) => sum + reward, 0) / rewards.length;
  const variance = rewards.reduce((sum, reward) => sum + (reward - mean) ** 2, 0) / rewards.length;
  return { mean, std: Math.sqrt(variance), size: rewards.length };
}

/** The group field of every record of one example, from all of that example's records (`members`). */
export function groupFieldFor(record: ResultRecord, members: readonly ResultRecord[]): NonNullable<ResultRecord['group']> {
  const stats = groupStats(members.filter((member) => member.reward !== null && !member.error).map((member) => member.reward!));
  return { ...stats, advantage: record.reward === null || stats.mean === null ? null : record.reward - stats.mean };
}

/**
 * The record with its group statistics over all of its example's records (`members`): the top-level group, and in an
 * environment with roles each role's group over that role's rewards (self-play gives each side its own baseline).
 */
export function withGroupStats(record: ResultRecord, members: readonly ResultRecord[]): ResultRecord {
  const group = groupFieldFor(record, members);
  if (!record.roles) return { ...record, group };
  const roles = record.roles.map((role) => {
    const rewards = members.flatMap((member) =>
      member.error ? [] : (member.roles ?? []).filter((each) => each.role === role.role && each.reward !== null).map((each) => each.reward!),
    );
    const stats = groupStats(rewards);
    return { ...role, group: { ...stats, advantage: role.reward === null || stats.mean === null ? null : role.reward - stats.mean } };
  });
  return { ...record, group, roles };
}

/**
 * Recomputes every record's group statistics over all records of its example, so that records written by two
 * processes (a run and its --resume) agree. Returns the records in file order and whether any changed.
 */
export function restateGroupStats(records: readonly ResultRecord[]): { records: ResultRecord[]; changed: boolean } {
  const byExample = new Map<string, ResultRecord[]>();
  for (const record of records) byExample.set(record.example_id, [...(byExample.get(record.example_id) ?? []), record]);
  let changed = false;
  const updated = records.map((record) => {
    const restated = withGroupStats(record, byExample.get(record.example_id)!);
    if (JSON.stringify(restated.group) === JSON.stringify(record.group) && JSON.stringify(restated.roles) === JSON.stringify(record.roles)) return record;
    changed = true;
    return restated;
  });
  return { records: updated, changed };
}
