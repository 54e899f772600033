import { describe, expect, it } from 'vitest';
import { lineageStatements } from '../../../src/viewer/run-lineage.js';

describe('the compare page lineage', () => {
  it('names the task folder whose tests re-verified a terminal run', () => {
    const source = { label: 'A' as const, directory: '/runs/terminal', metadata: { env: 'terminal' } };
    const rescored = {
      label: 'B' as const,
      directory: '/runs/terminal-rescore',
      metadata: {
        env: 'terminal',
        lineage: { kind: 'rescore', source_run: '/runs/terminal', env: 'terminal', env_source: { kind: 'task-folder', path: '/tasks/changed' }, repeats: 1 },
      },
    };
    expect(lineageStatements(source, rescored)).toEqual(['B re-scores A with terminal (the tests of /tasks/changed): same trajectories, new rewards']);
  });
});
