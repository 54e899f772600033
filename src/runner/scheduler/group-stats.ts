/** GRPO-style group statistics over the rewards of one example's rollouts (errored rollouts excluded). */
export interface GroupStats {
  mean: number;
  std: number;
  size: number;
}

export function groupStats(rewards: readonly number[]): GroupStats {
  if (rewards.length === 0) return { mean: 0, std: 0, size: 0 };
  const mean = rewards.reduce((sum, reward) => sum + reward, 0) / rewards.length;
  const variance = rewards.reduce((sum, reward) => sum + (reward - mean) ** 2, 0) / rewards.length;
  return { mean, std: Math.sqrt(variance), size: rewards.length };
}
