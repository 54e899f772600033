/**
 * The contract of `corral env check`: one result per check, each with a stable id, the severity of its outcome
 * (info when it passed, warning or error when it did not) and evidence, in a versioned report. Any error-level
 * result makes the command exit 1. Ids never change meaning; a new check gets a new id.
 */

export const ENVIRONMENT_CHECK_REPORT_VERSION = 'corral.env-check/v1' as const;

export type CheckSeverity = 'error' | 'warning' | 'info';

export const CHECK_IDS = [
  'oracle.max-reward',
  'floor.below-oracle',
  'rubric.deterministic',
  'replies.deterministic',
  'leakage.prompt',
  'leakage.system-prompt',
  'leakage.tool-descriptions',
  'leakage.tool-results',
  'isolation.network-declared',
  'isolation.network-probe',
  'isolation.verifier-trusts-agent-files',
  'isolation.setup-idempotent',
  'hygiene.tool-descriptions',
  'hygiene.example-ids',
  'hygiene.env-args',
  'hygiene.timeouts',
  'hygiene.tasks-load',
] as const;

export type CheckId = (typeof CHECK_IDS)[number];

export interface CheckResult {
  id: CheckId;
  passed: boolean;
  /** info when passed (or when the check had nothing to judge); warning or error when it failed. */
  severity: CheckSeverity;
  /** One line a person reads. */
  summary: string;
  /** What the verdict rests on: example ids, rewards, tool names; small and JSON-serialisable. */
  evidence: Record<string, unknown>;
}

export interface EnvironmentCheckReport {
  version: typeof ENVIRONMENT_CHECK_REPORT_VERSION;
  environment: string;
  /** The agents the battery ran (oracle and floor) and how many examples it looked at. */
  oracle: string;
  floor: string;
  examples: number;
  /**
   * Environments with roles: who played what. Each role is measured in two runs: its oracle against the floor in the
   * other roles, and the floor in it against the other roles' oracles. Absent without roles.
   */
  roles?: { role: string; oracle: string }[];
  checks: CheckResult[];
  counts: Record<CheckSeverity, number>;
}

export const passed = (id: CheckId, summary: string, evidence: Record<string, unknown> = {}): CheckResult => ({
  id,
  passed: true,
  severity: 'info',
  summary,
  evidence,
});

export const failed = (id: CheckId, severity: 'error' | 'warning', summary: string, evidence: Record<string, unknown> = {}): CheckResult => ({
  id,
  passed: false,
  severity,
  summary,
  evidence,
});

export function reportOf(head: Omit<EnvironmentCheckReport, 'version' | 'checks' | 'counts'>, checks: CheckResult[]): EnvironmentCheckReport {
  const counts: Record<CheckSeverity, number> = { error: 0, warning: 0, info: 0 };
  for (const check of checks) counts[check.severity] += 1;
  return { version: ENVIRONMENT_CHECK_REPORT_VERSION, ...head, checks, counts };
}
