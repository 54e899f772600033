/**
 * Two runs of one environment side by side: per example, the mean reward in each and the difference, and which
 * examples flipped (solved in one run and not the other; solved = some scored rollout reached PASS_REWARD, i.e.
 * pass@r for r rollouts, plain pass/fail for r = 1). Examples present in only one run are counted, not compared.
 */
import { PASS_REWARD } from '../runner/run/pass-at-k.js';
import { join } from 'node:path';
import type { RolloutRow } from './rollout-row.js';
import { lineageStatements } from './run-lineage.js';
import type { RunState } from './run-state.js';

export interface ExampleComparison {
  example_id: string;
  a: number | null;
  b: number | null;
  diff: number | null;
  flip: 'gained' | 'lost' | null;
}

export interface RunComparison {
  a: { avg_reward: number | null; pass_at_k: Record<string, number> | null; rollouts: number; errored: number };
  b: { avg_reward: number | null; pass_at_k: Record<string, number> | null; rollouts: number; errored: number };
  shared: number;
  onlyA: number;
  onlyB: number;
  gained: number;
  lost: number;
  meanDiff: number | null;
  /** Examples ordered by |diff|, largest first; flips before the rest. */
  examples: ExampleComparison[];
  /** Why the two runs may not be comparable: another environment, other env args, other rollouts per example. */
  warnings: string[];
  /** How the runs are related: one re-scores or replays the other (or another run), from metadata.json `lineage`. */
  lineage: string[];
}

const MAX_EXAMPLES = 2_000;

export function compareRuns(a: RunState, b: RunState): RunComparison {
  const byA = perExample(a.rows);
  const byB = perExample(b.rows);
  const examples: ExampleComparison[] = [];
  let diffSum = 0;
  let diffCount = 0;
  for (const [id, left] of byA) {
    const right = byB.get(id);
    if (!right) continue;
    const diff = left.mean !== null && right.mean !== null ? right.mean - left.mean : null;
    if (diff !== null) {
      diffSum += diff;
      diffCount++;
    }
    const flip = left.solved === right.solved ? null : right.solved ? 'gained' : 'lost';
    examples.push({ example_id: id, a: left.mean, b: right.mean, diff, flip });
  }
  const shared = examples.length;
  examples.sort(
    (x, y) => Number(y.flip !== null) - Number(x.flip !== null) || Math.abs(y.diff ?? 0) - Math.abs(x.diff ?? 0) || (x.example_id < y.example_id ? -1 : 1),
  );
  const side = (state: RunState) => {
    const summary = state.stats().summary;
    return { avg_reward: summary.avg_reward, pass_at_k: summary.passAtK, rollouts: summary.rollouts, errored: summary.errored };
  };
  return {
    a: side(a),
    b: side(b),
    shared,
    onlyA: [...byA.keys()].filter((id) => !byB.has(id)).length,
    onlyB: [...byB.keys()].filter((id) => !byA.has(id)).length,
    gained: examples.filter((example) => example.flip === 'gained').length,
    lost: examples.filter((example) => example.flip === 'lost').length,
    meanDiff: diffCount ? diffSum / diffCount : null,
    examples: examples.slice(0, MAX_EXAMPLES),
    warnings: comparabilityWarnings(a.metadata(), b.metadata()),
    lineage: lineageStatements(
      { label: 'A', directory: join(a.root, a.id), metadata: a.metadata() },
      { label: 'B', directory: join(b.root, b.id), metadata: b.metadata() },
    ),
  };
}

/** Differences in what the runs ran (from metadata.json), said before the numbers are read side by side. */
export function comparabilityWarnings(a: Record<string, unknown> | null, b: Record<string, unknown> | null): string[] {
  if (!a || !b) return [`${a ? 'B' : 'A'} has no readable metadata.json: whether both ran the same environment and env args is unknown`];
  const warnings: string[] = [];
  const envA = a.env ?? a.env_id;
  const envB = b.env ?? b.env_id;
  if (envA !== envB) warnings.push(`different environments: A ran ${String(envA)}, B ran ${String(envB)}`);
  const argsA = canonicalJson(a.env_args ?? null);
  const argsB = canonicalJson(b.env_args ?? null);
  if (argsA !== argsB) warnings.push(`different env args: A ${argsA}, B ${argsB}`);
  if (a.rollouts_per_example !== b.rollouts_per_example)
    warnings.push(`different rollouts per example: A ${String(a.rollouts_per_example)}, B ${String(b.rollouts_per_example)} (pass@k differ in k)`);
  return warnings;
}

/** JSON with object keys sorted, so {a, b} and {b, a} compare equal. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : 1)))
      : inner,
  );
}

function perExample(rows: readonly RolloutRow[]): Map<string, { mean: number | null; solved: boolean }> {
  const sums = new Map<string, { sum: number; n: number; solved: boolean }>();
  for (const row of rows) {
    const entry = sums.get(row.example_id) ?? { sum: 0, n: 0, solved: false };
    if (row.reward !== null && !row.error) {
      entry.sum += row.reward;
      entry.n++;
      if (row.reward >= PASS_REWARD) entry.solved = true;
    }
    sums.set(row.example_id, entry);
  }
  return new Map([...sums].map(([id, { sum, n, solved }]) => [id, { mean: n ? sum / n : null, solved }]));
}
