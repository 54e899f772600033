/**
 * canaries.jsonl beside results.jsonl: one line per canaried example ({type: "canary", example_id, quarantine,
 * oracle, floor}), appended as each pair finishes, so metadata.json's quarantine list survives --resume. Kept out
 * of results.jsonl on purpose: every reader of that file (summary, pass@k, samples, the viewer's statistics) then
 * never sees a canary.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CanaryOutcome, Quarantine } from './canary-contract.js';

export const CANARIES_FILE = 'canaries.jsonl';

export function appendCanary(directory: string, outcome: CanaryOutcome): void {
  appendFileSync(join(directory, CANARIES_FILE), `${JSON.stringify({ type: 'canary', ...outcome })}\n`);
}

/** The latest outcome per example (a resumed run canaries an unfinished example again); a torn last line is skipped. */
export function readCanaries(directory: string): Map<string, CanaryOutcome> {
  const path = join(directory, CANARIES_FILE);
  const outcomes = new Map<string, CanaryOutcome>();
  if (!existsSync(path)) return outcomes;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      const parsed = JSON.parse(line) as CanaryOutcome & { type?: string };
      if (parsed.type === 'canary' && typeof parsed.example_id === 'string') outcomes.set(parsed.example_id, parsed);
    } catch {
      // A line cut by a crash: that example is canaried again when its group runs.
    }
  }
  return outcomes;
}

/** metadata.json's `canaries` field: the rate, how many examples were canaried, and the quarantined ones. */
export function canaryMetadata(rate: number, outcomes: ReadonlyMap<string, CanaryOutcome>): Record<string, unknown> {
  const quarantined: Quarantine[] = [...outcomes.values()].map((outcome) => outcome.quarantine).filter((item): item is Quarantine => item !== null);
  return { canaries: { rate, canaried_examples: outcomes.size, quarantined: quarantined.sort((a, b) => a.example_id.localeCompare(b.example_id)) } };
}
