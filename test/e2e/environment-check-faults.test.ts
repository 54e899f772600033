/**
 * `corral env check` through the real CLI against planted faults (test/fixtures/environment-check/): each one is
 * caught by the check named for it, with severity error and exit 1, while the sound control passes every check.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EnvironmentCheckReport } from '../../src/environment-check/check-report.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { ROOT, runCorral } from './runner-cli.js';

const FIXTURES = join(ROOT, 'test', 'fixtures', 'environment-check');
const processBackend = await backendAvailable('process');
const dockerBackend = await backendAvailable('docker');

async function check(fixture: string): Promise<{ code: number | null; report: EnvironmentCheckReport; stderr: string }> {
  const result = await runCorral(['env', 'check', join(FIXTURES, `${fixture}.ts`), '--json', '--backend', 'process']);
  return { code: result.code, report: JSON.parse(result.stdout) as EnvironmentCheckReport, stderr: result.stderr };
}

const failing = (report: EnvironmentCheckReport) => report.checks.filter((item) => !item.passed).map((item) => `${item.id}:${item.severity}`);

describe.skipIf(!processBackend)('corral env check: planted faults', () => {
  it('passes the sound control environment with exit 0', async () => {
    const { code, report, stderr } = await check('sound');
    expect(failing(report), stderr).toEqual([]);
    expect(code).toBe(0);
    expect(report.version).toBe('corral.env-check/v1');
    expect(report.oracle).toBe('reference-answer');
  }, 120_000);

  it('catches a rubric that pays an empty answer (floor.below-oracle)', async () => {
    const { code, report } = await check('pays-empty-answer');
    expect(failing(report)).toEqual(['floor.below-oracle:error']);
    expect(report.checks.find((item) => item.id === 'floor.below-oracle')?.evidence).toMatchObject({ floor_mean: 1, oracle_mean: 1 });
    expect(code).toBe(1);
  }, 120_000);

  it('catches a dataset whose prompt contains the answer (leakage.prompt)', async () => {
    const { code, report } = await check('answer-in-prompt');
    expect(failing(report)).toEqual(['leakage.prompt:error']);
    expect(report.checks.find((item) => item.id === 'leakage.prompt')?.evidence).toMatchObject({ judged: 4, leak_count: 4 });
    expect(code).toBe(1);
  }, 120_000);

  it('catches a nondeterministic rubric (rubric.deterministic)', async () => {
    const { code, report } = await check('random-rubric');
    expect(failing(report)).toContain('rubric.deterministic:error');
    const evidence = report.checks.find((item) => item.id === 'rubric.deterministic')?.evidence as { spreads: { function: string; values: number[] }[] };
    expect(evidence.spreads[0]).toMatchObject({ function: 'noisy_answer' });
    expect(evidence.spreads[0]!.values).toHaveLength(3);
    expect(code).toBe(1);
  }, 120_000);

  it('catches examples asking for network the environment does not declare (isolation.network-declared, isolation.network-probe)', async () => {
    const { code, report } = await check('undeclared-network');
    expect(failing(report)).toEqual(['isolation.network-declared:error', 'isolation.network-probe:error']);
    const probe = report.checks.find((item) => item.id === 'isolation.network-probe')?.evidence as { probed: boolean; interfaces: string[] };
    expect(probe.probed).toBe(true);
    expect(probe.interfaces.filter((name) => name !== 'lo').length).toBeGreaterThan(0);
    expect(report.checks.find((item) => item.id === 'isolation.network-declared')?.evidence).toMatchObject({
      declared: 'none',
      examples_asking_egress: ['france', 'japan', 'kenya', 'peru'],
    });
    expect(code).toBe(1);
  }, 120_000);

  it('catches a tool without a description (hygiene.tool-descriptions)', async () => {
    const { code, report } = await check('undescribed-tool');
    expect(failing(report)).toEqual(['hygiene.tool-descriptions:error']);
    expect(report.checks.find((item) => item.id === 'hygiene.tool-descriptions')?.evidence).toMatchObject({ undescribed: ['atlas'], unschemed: [] });
    expect(code).toBe(1);
  }, 120_000);

  it('catches two examples sharing an id (hygiene.example-ids)', async () => {
    const { code, report } = await check('duplicate-ids');
    expect(failing(report)).toEqual(['hygiene.example-ids:error']);
    expect(report.checks.find((item) => item.id === 'hygiene.example-ids')?.evidence).toMatchObject({ duplicates: ['capital'] });
    expect(code).toBe(1);
  }, 120_000);

  it('catches a tool that returns the answer as the answer (leakage.tool-results)', async () => {
    const { code, report, stderr } = await check('answer-in-tool-result');
    expect(failing(report), stderr).toEqual(['leakage.tool-results:error']);
    expect(report.oracle).toBe('oracle');
    expect(report.checks.find((item) => item.id === 'leakage.tool-results')?.evidence).toMatchObject({ judged: 4, leak_count: 4 });
    expect(code).toBe(1);
  }, 120_000);

  it('catches a setup that is not idempotent on a reused sandbox (isolation.setup-idempotent)', async () => {
    const { code, report, stderr } = await check('setup-appends');
    expect(failing(report), stderr).toEqual(['isolation.setup-idempotent:error']);
    const evidence = report.checks.find((item) => item.id === 'isolation.setup-idempotent')?.evidence as { changed_reward: { example: string }[] };
    expect(evidence.changed_reward.sort((a, b) => a.example.localeCompare(b.example))).toEqual([
      { example: 'france', once: 1, twice: 0 },
      { example: 'japan', once: 1, twice: 0 },
      { example: 'kenya', once: 1, twice: 0 },
      { example: 'peru', once: 1, twice: 0 },
    ]);
    expect(code).toBe(1);
  }, 120_000);

  it('prints one line per check without --json, and refuses a margin outside 0..1 naming the flag', async () => {
    const text = await runCorral(['env', 'check', join(FIXTURES, 'pays-empty-answer.ts'), '--backend', 'process']);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/^ERROR floor\.below-oracle +an empty answer earns 1\.000/m);
    expect(text.stdout).toMatch(/^ok +leakage\.prompt/m);
    expect(text.stdout).toContain('1 errors, 0 warnings');
    const refused = await runCorral(['env', 'check', join(FIXTURES, 'sound.ts'), '--margin', '2']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('--margin');
    expect(refused.stderr).toContain('CFG_ERR_INVALID');
  }, 120_000);
});

describe.skipIf(!dockerBackend)('corral env check: a planted fault in a Harbor task folder', () => {
  it('catches a verifier that trusts a file the agent writes (isolation.verifier-trusts-agent-files), and only that task', async () => {
    // tasks/: a sound task (the tests check /app/answer.txt's content) and one whose tests pay for /app/checks-passed.
    const result = await runCorral(['env', 'check', join(FIXTURES, 'tasks'), '--json']);
    const report = JSON.parse(result.stdout) as EnvironmentCheckReport;
    expect(failing(report), result.stderr).toEqual(['isolation.verifier-trusts-agent-files:error']);
    expect(report).toMatchObject({ oracle: 'oracle', floor: 'nop', examples: 2 });
    const trust = report.checks.find((item) => item.id === 'isolation.verifier-trusts-agent-files')!.evidence as {
      planted: Record<string, string[]>;
      trusting: { task: string; forged_reward: number; nop_reward: number; forged_paths: string[] }[];
    };
    expect(trust.trusting).toEqual([{ task: 'corral-fixtures/trusts-agent-files', forged_reward: 1, nop_reward: 0, forged_paths: ['/app/checks-passed'] }]);
    // The sound task's answer file was forged too, and its verifier (which checks the content) paid nothing for it.
    expect(trust.planted['corral-fixtures/sound-task']).toEqual(['/app/answer.txt']);
    expect(result.code).toBe(1);
  }, 180_000);
});
