/**
 * Which trials of a terminal run `corral rescore` verifies again: those that reached the verifier and kept their final
 * file system (an archive inside the run directory); the others are copied, except a scored trial without one, which
 * the command refuses with the reason.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ResultRecord } from '../../../../src/runner/trajectory/result-record.js';
import { reverifyPlan } from '../../../../src/terminal/trial/reverify-executor.js';

const run = mkdtempSync(join(tmpdir(), 'corral-reverify-plan-'));
mkdirSync(join(run, 'task__A'));
writeFileSync(join(run, 'task__A', 'final-file-system.tar.gz'), 'archive');
symlinkSync(join(run, 'task__A', 'final-file-system.tar.gz'), join(run, 'task__A', 'linked.tar.gz'));
afterAll(() => rmSync(run, { recursive: true, force: true }));

const kept = (path: string | null) => ({ path, image: 'corral-task/t:1', changes: 3, bytes: 7, ...(path ? {} : { reason: 'too large' }) });
const record = (info: Record<string, unknown>, error: ResultRecord['error'] = null) => ({ info, error }) as unknown as ResultRecord;
const verified = { verifier_phase: { exit_code: 0, timed_out: false } };

describe('reverifyPlan', () => {
  it('verifies a trial that reached the verifier and kept its file system, from the archive in the run directory', () => {
    expect(reverifyPlan(record({ ...verified, final_file_system: kept('task__A/final-file-system.tar.gz') }), run)).toEqual({
      kind: 'verify',
      archive: join(run, 'task__A', 'final-file-system.tar.gz'),
      fileSystem: kept('task__A/final-file-system.tar.gz'),
    });
  });

  it('copies trials that never reached the verifier, and errored ones without a file system', () => {
    const imageFailure = { boundary: 'sandbox', code: 'TASK_ERR_IMAGE_BUILD_FAILED', message: 'no', transient: false } as const;
    expect(reverifyPlan(record({ verifier_phase: null }, imageFailure), run)).toEqual({ kind: 'copy' });
    expect(reverifyPlan(record({ verifier_phase: null, final_file_system: null }), run)).toEqual({ kind: 'copy' });
    const noReward = { boundary: 'rubric', code: 'TERMINAL_ERR_NO_REWARD', message: 'no', transient: false } as const;
    expect(reverifyPlan(record({ verifier_phase: { exit_code: 1 }, final_file_system: kept(null) }, noReward), run)).toEqual({ kind: 'copy' });
  });

  it('says why a scored trial cannot be verified again: not recorded, not kept, missing, a link, or outside the run', () => {
    const reason = (info: Record<string, unknown>) => {
      const plan = reverifyPlan(record({ ...verified, ...info }), run);
      return plan.kind === 'no-file-system' ? plan.reason : plan.kind;
    };
    expect(reason({})).toContain('the run kept no final file systems (`corral eval terminal --keep-file-system`');
    expect(reason({ final_file_system: null })).toContain('kept no final file systems');
    expect(reason({ final_file_system: kept(null) })).toBe('it was not kept: too large');
    expect(reason({ final_file_system: kept('task__B/final-file-system.tar.gz') })).toContain('is missing');
    expect(reason({ final_file_system: kept('task__A/linked.tar.gz') })).toContain('is not a regular file');
    expect(reason({ final_file_system: kept('../elsewhere.tar.gz') })).toContain('leaves the run directory');
  });
});
