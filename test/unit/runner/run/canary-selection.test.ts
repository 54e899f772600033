import { describe, expect, it } from 'vitest';
import { isCanaried, quarantineOf } from '../../../../src/runner/run/canaries/canary-runner.js';
import type { ResultRecord } from '../../../../src/runner/trajectory/result-record.js';

const record = (reward: number | null, code?: string) => ({ reward, error: code ? { code } : null }) as unknown as ResultRecord;

describe('live canaries: selection and verdict', () => {
  it('canaries about RATE of the examples, the same ones every time (a resumed run picks them again)', () => {
    const ids = Array.from({ length: 2000 }, (_, index) => `example-${index}`);
    const chosen = ids.filter((id) => isCanaried(id, 0.25));
    expect(chosen.length / ids.length).toBeGreaterThan(0.2);
    expect(chosen.length / ids.length).toBeLessThan(0.3);
    expect(ids.filter((id) => isCanaried(id, 0.25))).toEqual(chosen);
    expect(ids.every((id) => isCanaried(id, 1))).toBe(true);
  });

  it('quarantines a missed or errored oracle and a scoring floor, not a floor whose rubric errored', () => {
    expect(quarantineOf('a', record(1), record(0), 1)).toBeNull();
    expect(quarantineOf('a', record(0.5), record(0), 1)?.reasons).toEqual(['oracle-missed']);
    expect(quarantineOf('a', record(null, 'MODEL_ERR_HTTP_500'), record(0), 1)).toMatchObject({
      reasons: ['oracle-errored'],
      oracle_error: 'MODEL_ERR_HTTP_500',
    });
    expect(quarantineOf('a', record(1), record(0.3), 1)?.reasons).toEqual(['floor-scored']);
    expect(quarantineOf('a', record(1), record(null, 'RUBRIC_ERR_FAILED'), 1)).toBeNull();
  });
});
