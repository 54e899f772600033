/**
 * pass@k with the unbiased estimator of Chen et al. (2021, "Evaluating Large Language Models Trained on Code"):
 * per example, with n scored rollouts of which c passed, pass@k = 1 - C(n-c, k) / C(n, k), averaged over the
 * examples with n >= k. A rollout passes when its reward reaches PASS_REWARD (full marks on a 0/1 rubric);
 * errored rollouts are not samples, so they count in neither n nor c.
 */
import type { ResultRecord } from '../trajectory/result-record.js';

export const PASS_REWARD = 1;

/** The k reported for groups of r: 1, 2, 4, ... up to r, and r itself. */
export function reportedKs(rolloutsPerExample: number): number[] {
  const ks: number[] = [];
  for (let k = 1; k <= rolloutsPerExample; k *= 2) ks.push(k);
  if (ks.at(-1) !== rolloutsPerExample) ks.push(rolloutsPerExample);
  return ks;
}

/** 1 - C(n-c, k)/C(n, k), as a product so that no binomial overflows. */
export function passAtK(n: number, c: number, k: number): number {
  if (n - c < k) return 1;
  let allFail = 1;
  for (let i = n - c + 1; i <= n; i++) allFail *= 1 - k / i;
  return 1 - allFail;
}

/** `{ "1": 0.41, "2": 0.55, ... }` over the run's examples; null when r is 1 (pass@1 is the mean reward's cousin). */
export function passAtKByK(records: readonly ResultRecord[], rolloutsPerExample: number): Record<string, number> | null {
  if (rolloutsPerExample <= 1) return null;
  const byExample = new Map<string, { n: number; c: number }>();
  for (const record of records) {
    if (record.error || record.reward === null) continue;
    const counts = byExample.get(record.example_id) ?? { n: 0, c: 0 };
    counts.n++;
    if (record.reward >= PASS_REWARD) counts.c++;
    byExample.set(record.example_id, counts);
  }
  const result: Record<string, number> = {};
  for (const k of reportedKs(rolloutsPerExample)) {
    const estimates = [...byExample.values()].filter(({ n }) => n >= k).map(({ n, c }) => passAtK(n, c, k));
    if (estimates.length > 0) result[String(k)] = estimates.reduce((sum, value) => sum + value, 0) / estimates.length;
  }
  return result;
}
