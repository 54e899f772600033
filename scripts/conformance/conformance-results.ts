/**
 * Reads what the conformance CLI wrote with `-o <dir>` (one `server-<scenario>-<timestamp>/checks.json`
 * per scenario) and turns it into one outcome per scenario. A scenario passes when none of its checks
 * is a FAILURE, which is the CLI's own rule; WARNINGs (SHOULD-level advice) are counted and shown.
 * A scenario that was expected but left no checks (the CLI crashed, or skipped it) fails.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | string;
  errorMessage?: string;
}

export interface ScenarioOutcome {
  /** The protocol era (spec version) the run was filtered to. */
  era: string;
  /** The corral environment the scenario ran against, e.g. python or conformance. */
  environment: string;
  scenario: string;
  passed: boolean;
  successes: number;
  failures: number;
  warnings: number;
  /** "check-id: message" for each FAILURE and WARNING. */
  notes: string[];
}

/** e.g. server-tools-list-2026-11-30T05-20-16-009Z */
const RESULT_DIRECTORY = /^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;

export async function readOutcomes(
  outputDir: string,
  expected: { era: string; environment: string; scenarios: readonly string[] },
): Promise<ScenarioOutcome[]> {
  const checksByScenario = await readChecks(outputDir);
  return expected.scenarios.map((scenario) => {
    const checks = checksByScenario.get(scenario);
    if (!checks) {
      return {
        era: expected.era,
        environment: expected.environment,
        scenario,
        passed: false,
        successes: 0,
        failures: 1,
        warnings: 0,
        notes: [`no checks recorded (see ${join(outputDir, 'cli.log')})`],
      };
    }
    const count = (status: string) => checks.filter((check) => check.status === status).length;
    const notes = checks
      .filter((check) => check.status === 'FAILURE' || check.status === 'WARNING')
      .map((check) => `${check.status} ${check.id}: ${check.errorMessage ?? ''}`.trim());
    return {
      era: expected.era,
      environment: expected.environment,
      scenario,
      passed: count('FAILURE') === 0,
      successes: count('SUCCESS'),
      failures: count('FAILURE'),
      warnings: count('WARNING'),
      notes,
    };
  });
}

async function readChecks(outputDir: string): Promise<Map<string, Check[]>> {
  const checksByScenario = new Map<string, Check[]>();
  if (!existsSync(outputDir)) return checksByScenario;
  for (const entry of await readdir(outputDir, { withFileTypes: true })) {
    const scenario = entry.isDirectory() ? RESULT_DIRECTORY.exec(entry.name)?.[1] : undefined;
    const checksPath = join(outputDir, entry.name, 'checks.json');
    if (!scenario || !existsSync(checksPath)) continue;
    checksByScenario.set(scenario, JSON.parse(await readFile(checksPath, 'utf8')) as Check[]);
  }
  return checksByScenario;
}

export function formatOutcomeTable(outcomes: readonly ScenarioOutcome[]): string {
  const header = ['era', 'environment', 'scenario', 'result', 'checks ok/failed/warned'];
  const rows = outcomes.map((outcome) => [
    outcome.era,
    outcome.environment,
    outcome.scenario,
    outcome.passed ? (outcome.warnings > 0 ? 'PASS (warnings)' : 'PASS') : 'FAIL',
    `${outcome.successes}/${outcome.failures}/${outcome.warnings}`,
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  const notes = outcomes.flatMap((outcome) => outcome.notes.map((note) => `  ${outcome.era} ${outcome.environment} ${outcome.scenario}: ${note}`));
  return [
    line(header),
    line(widths.map((width) => '-'.repeat(width))),
    ...rows.map(line),
    ...(notes.length > 0 ? ['', 'failures and warnings:', ...notes] : []),
  ].join('\n');
}
