import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { isOwnerAlive } from '../../../src/core/owner.js';
import { isProcessAlive } from '../../../src/core/process-alive.js';
import { hostname } from 'node:os';

describe('isProcessAlive (the one pid probe: owners and run liveness)', () => {
  it('is true for a running process, also one we may not signal (pid 1), and false once a process has exited and been reaped', () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    expect(isProcessAlive(1)).toBe(true);
    const exited = spawnSync('true').pid!;
    expect(isProcessAlive(exited)).toBe(false);
    expect(isOwnerAlive(`${hostname()}:${exited}:0`)).toBe(false);
  });
});
