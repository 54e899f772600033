/**
 * Lease.fork through the warm pool on the process backend (real bubblewrap sandboxes): children come from the pool
 * and are counted as leases, a child that cannot be filled is destroyed rather than handed out, and a lease whose
 * sandbox cannot fork is refused typed with nothing acquired.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CorralError } from '../../src/core/errors.js';
import { namespaceCopyUnavailable } from '../../src/sandbox/file-system-copy/namespace-tar.js';
import { SandboxPool } from '../../src/sandbox/pool/sandbox-pool.js';
import { ProcessProvider } from '../../src/sandbox/process/process-provider.js';
import { FakeProvider } from '../helpers/fake-provider.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { gate } from '../helpers/test-gates.js';

const available = (await backendAvailable('process')) && gate('sandbox fork (root)', namespaceCopyUnavailable());
const spec = { backend: 'process', memoryMiB: 256, workspaceMiB: 64 } as const;

const errorCode = (error: unknown) => (CorralError.isInstance(error) ? error.code : String(error));

describe.skipIf(!available)('Lease.fork through the pool (process backend)', () => {
  const pool = new SandboxPool({ healthIntervalMs: 0, reapIntervalMs: 0 }, { resolveProvider: async () => new ProcessProvider() });
  afterAll(() => pool.close());

  it('forks a lease into pooled children that start with its files, and counts them as leases', async () => {
    const parent = await pool.acquire(spec);
    await parent.session.files.write({ path: 'setup/ready.txt', content: 'prepared' });
    const children = await parent.fork({ count: 3 });
    try {
      expect(new Set(children.map((child) => child.session.id)).size).toBe(3);
      expect(pool.stats()[0]).toMatchObject({ leased: 4 });
      for (const child of children) expect((await child.session.files.read({ path: 'setup/ready.txt' }))?.content).toBe('prepared');
      await children[0]!.session.files.write({ path: 'setup/ready.txt', content: 'changed' });
      expect((await children[1]!.session.files.read({ path: 'setup/ready.txt' }))?.content).toBe('prepared');
      expect((await parent.session.files.read({ path: 'setup/ready.txt' }))?.content).toBe('prepared');
    } finally {
      await Promise.all([parent, ...children].map((lease) => lease.release()));
    }
    await pool.settle();
    expect(pool.stats()[0]).toMatchObject({ leased: 0 });
  });

  it('destroys a sandbox a snapshot cannot fill instead of handing it out', async () => {
    const parent = await pool.acquire(spec);
    const snapshot = await parent.snapshot();
    await parent.release();
    const destroyedBefore = pool.stats()[0]!.destroyedTotal;
    const foreign = { ...snapshot, backend: 'docker' as const };
    const failure = await pool.acquire(spec, { from: foreign }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(errorCode(failure)).toBe('SBX_ERR_UNSUPPORTED');
    await pool.settle();
    expect(pool.stats()[0]).toMatchObject({ leased: 0 });
    expect(pool.stats()[0]!.destroyedTotal).toBeGreaterThan(destroyedBefore);
  });
});

describe('Lease.fork of a sandbox that cannot fork', () => {
  it('refuses with SBX_ERR_UNSUPPORTED and acquires no child', async () => {
    const provider = new FakeProvider();
    const pool = new SandboxPool({ healthIntervalMs: 0, reapIntervalMs: 0 }, { resolveProvider: async () => provider });
    try {
      const parent = await pool.acquire();
      // The fake's session is a bare object: give it the capability set a real session always has.
      Object.assign(parent.session, { backend: 'process', capabilities: new Set(['exec']) });
      const failure = await parent.fork({ count: 2 }).then(
        () => null,
        (error: unknown) => error,
      );
      expect(errorCode(failure)).toBe('SBX_ERR_UNSUPPORTED');
      expect(provider.created).toHaveLength(1);
      const invalid = await parent.fork({ count: 0 }).then(
        () => null,
        (error: unknown) => error,
      );
      expect(errorCode(invalid)).toBe('SBX_ERR_INVALID_ARGUMENT');
    } finally {
      await pool.close();
    }
  });
});
