/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, run on Node 22 from tools/node22)
 * against a real `corral serve`: every fixture-independent scenario on /mcp/python and the whole server
 * suite on the /mcp/conformance fixtures, for every protocol era the suite knows; then the suite's 0.2.0 alpha
 * line (tools/conformance-alpha) with --requirements 2025-11-25 and 2026-07-28, which must have no scored
 * failure and no failure of the tasks extension's scenarios (tasks-*, which the suite runs unscored; other
 * unscored ones, pending scenarios, are printed). A second test proves the harness can
 * fail, so a green run is not an artefact of how results are read.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { conformanceCli } from '../../scripts/conformance/conformance-cli.js';
import { formatOutcomeTable, readOutcomes } from '../../scripts/conformance/conformance-results.js';
import { startCorralServer } from '../../scripts/conformance/corral-server-process.js';
import { ALPHA_REQUIREMENTS, FIXTURE_INDEPENDENT_SCENARIOS, NORMAL_ENVIRONMENT, runConformance } from '../../scripts/conformance/run-conformance.js';

const missingNode22 = node22Problem();

describe.skipIf(missingNode22)('the MCP conformance suite against corral serve', () => {
  it('passes the fixture-independent scenarios on python and the whole server suite on the fixtures, in every era', async () => {
    const report = await runConformance({ outputDir: await mkdtemp(join(tmpdir(), 'corral-conformance-')) });
    const failed = report.outcomes.filter((outcome) => outcome.scored && !outcome.passed);
    // The checks stay on disk when something failed, for the message below to point at.
    expect(failed, `conformance failures (checks in ${report.outputDir}):\n${formatOutcomeTable(failed)}`).toEqual([]);
    // The suite does not score the tasks extension (SEP-2663), but corral implements it: a tasks-* failure fails here.
    const taskFailures = report.outcomes.filter((outcome) => outcome.scenario.startsWith('tasks-') && !outcome.passed);
    expect(taskFailures, `tasks extension failures (checks in ${report.outputDir}):\n${formatOutcomeTable(taskFailures)}`).toEqual([]);
    const unscoredFailures = report.outcomes.filter((outcome) => !outcome.scored && !outcome.passed);
    if (unscoredFailures.length > 0) console.warn(`[conformance] unscored failures (not counted):\n${formatOutcomeTable(unscoredFailures)}`);
    await rm(report.outputDir, { recursive: true, force: true });
    // Not vacuous: both eras ran, each with both halves of the run.
    expect(report.outcomes.length).toBeGreaterThan(0);
    expect(report.eras).toEqual(expect.arrayContaining(['2025-06-18', '2025-11-25']));
    const [stableSuite, alphaSuite] = report.suites;
    const stable = report.outcomes.filter((outcome) => outcome.suite === stableSuite);
    for (const era of report.eras) {
      const inEra = stable.filter((outcome) => outcome.era === era);
      expect(inEra.filter((outcome) => outcome.environment === NORMAL_ENVIRONMENT).map((outcome) => outcome.scenario)).toEqual(
        expect.arrayContaining(['server-initialize', 'ping', 'tools-list']),
      );
      expect(inEra.filter((outcome) => outcome.environment === 'conformance').length).toBeGreaterThanOrEqual(24);
    }
    const checked = stable.filter((outcome) => outcome.era === '2025-11-25' && outcome.environment === NORMAL_ENVIRONMENT).map((outcome) => outcome.scenario);
    expect(checked.sort()).toEqual([...FIXTURE_INDEPENDENT_SCENARIOS].sort());

    // The alpha line ran both requirement sets, and the 2026-07-28 scenarios corral implements are scored passes.
    expect(alphaSuite).toMatch(/^0\.2\.0-alpha\.\d+$/);
    const alpha = report.outcomes.filter((outcome) => outcome.suite === alphaSuite);
    for (const requirements of ALPHA_REQUIREMENTS) {
      expect(alpha.filter((outcome) => outcome.era === requirements && outcome.environment === 'conformance' && outcome.scored).length).toBeGreaterThanOrEqual(
        24,
      );
      expect(alpha.filter((outcome) => outcome.era === requirements && outcome.environment === NORMAL_ENVIRONMENT)).not.toEqual([]);
    }
    const modern = alpha.filter((outcome) => outcome.era === '2026-07-28' && outcome.environment === 'conformance');
    const scoredPasses = modern.filter((outcome) => outcome.scored && outcome.passed).map((outcome) => outcome.scenario);
    expect(scoredPasses).toEqual(
      expect.arrayContaining([
        'server-stateless',
        'input-required-result-basic-elicitation',
        'input-required-result-tampered-state',
        'input-required-result-multi-round',
      ]),
    );
    // ...and the tasks scenarios ran on the fixtures (unscored by the suite, passing is required above).
    const taskScenarios = modern.filter((outcome) => outcome.scenario.startsWith('tasks-'));
    expect(taskScenarios.map((outcome) => outcome.scenario)).toEqual(
      expect.arrayContaining(['tasks-lifecycle', 'tasks-capability-negotiation', 'tasks-mrtr-input', 'tasks-mrtr-composition', 'tasks-required-task-error']),
    );
    expect(taskScenarios.every((outcome) => outcome.successes > 0 || outcome.scenario === 'tasks-status-notifications')).toBe(true);
  }, 900_000);

  it('records a failure for a scenario whose fixtures the environment lacks, and has no fixtures without the flag', async () => {
    const server = await startCorralServer([]);
    try {
      const initialize = {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
      };
      const response = await fetch(`${server.baseUrl}/mcp/conformance`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(initialize),
      });
      expect(response.status).toBe(404);

      const outputDir = await mkdtemp(join(tmpdir(), 'corral-conformance-negative-'));
      await conformanceCli().runServer({ url: `${server.baseUrl}/mcp/${NORMAL_ENVIRONMENT}`, outputDir, scenario: 'resources-read-text' });
      const [outcome] = await readOutcomes(outputDir, {
        suite: 'stable',
        era: '2025-11-25',
        environment: NORMAL_ENVIRONMENT,
        scenarios: ['resources-read-text'],
      });
      expect(outcome).toMatchObject({ scenario: 'resources-read-text', passed: false });
      expect(outcome!.failures).toBeGreaterThan(0);
      await rm(outputDir, { recursive: true, force: true });
    } finally {
      await server.stop();
    }
  }, 120_000);
});

/** Skips loudly on a machine without Node 22; under CI=true a missing Node 22 fails instead, as missing backends do. */
function node22Problem(): boolean {
  try {
    conformanceCli();
    conformanceCli('alpha');
    return false;
  } catch (error) {
    const message = `[corral tests] MCP conformance suite unavailable: ${(error as Error).message}`;
    if (process.env.CI) throw new Error(`${message} (CI=true: refusing to skip)`);
    console.warn(`${message}; SKIPPING`);
    return true;
  }
}
