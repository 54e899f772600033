import { describe, expect, it } from 'vitest';
import { staleReason } from '../../../../src/sandbox/docker/container-cleanup.js';
import { sandboxLabels } from '../../../../src/sandbox/docker/docker-labels.js';

const nowMs = 1_000_000;
const labels = (ownerId: string, expiresAtMs: number) => sandboxLabels({ version: '0.1.0', ownerId, sandboxId: 'sbx_1', expiresAtMs, specHash: 'h' });

describe('staleReason', () => {
  const alive = (ownerId: string) => ownerId === 'alive';

  it('keeps a live owner’s unexpired container', () => {
    expect(staleReason(labels('alive', nowMs + 1), { ownerAlive: alive, nowMs })).toBeUndefined();
  });

  it('removes on a dead owner, a passed expiry, missing labels, or all', () => {
    expect(staleReason(labels('dead', nowMs + 1), { ownerAlive: alive, nowMs })).toBe('owner gone');
    expect(staleReason(labels('alive', nowMs), { ownerAlive: alive, nowMs })).toBe('expired');
    expect(staleReason({ 'corral.app': 'corral' }, { ownerAlive: alive, nowMs })).toBe('no owner label');
    expect(staleReason(labels('alive', nowMs + 1), { ownerAlive: alive, nowMs, all: true })).toBe('all');
  });
});
