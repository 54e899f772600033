/** The report as a person reads it: one line per check (severity, id, summary), then the counts. */
import type { EnvironmentCheckReport } from './check-report.js';

const MARK = { error: 'ERROR', warning: 'WARN ', info: 'ok   ' } as const;

export function formatReport(report: EnvironmentCheckReport): string {
  const lines = [
    `corral env check ${report.environment}: ${report.examples} examples, oracle ${report.oracle}, floor ${report.floor}`,
    ...(report.roles
      ? [
          `roles: ${report.roles.map((each) => `${each.role} (oracle ${each.oracle})`).join(', ')}; each measured against the floor, and the floor against the oracles`,
        ]
      : []),
    ...report.checks.map((check) => `${check.passed ? MARK.info : MARK[check.severity]} ${check.id.padEnd(38)} ${check.summary}`),
    `${report.counts.error} errors, ${report.counts.warning} warnings`,
  ];
  return `${lines.join('\n')}\n`;
}
