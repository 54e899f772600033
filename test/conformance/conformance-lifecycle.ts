import { describe, expect, it } from 'vitest';
import { newId } from '../../src/core/ids.js';
import { OWNER_ID } from '../../src/core/owner.js';
import type { SandboxHandle } from '../../src/sandbox/provider.js';
import { parseSandboxSpec, type SandboxSpecInput } from '../../src/sandbox/spec.js';
import { itWithCapabilities, requireCapabilities, type MakeProvider } from './sandbox-fixture.js';

function closedPromise(handle: SandboxHandle): Promise<Error> {
  return new Promise((resolve) => handle.onClose(resolve));
}

/** Lifecycle the pool relies on: self-reported death, the dead-man deadline, and cleanup of orphans. */
export function describeLifecycleConformance(makeProvider: MakeProvider, specInput: SandboxSpecInput): void {
  describe('lifecycle', () => {
    const spec = parseSandboxSpec(specInput);

    itWithCapabilities(['exec'], 'reports a sandbox whose agent dies through onClose, and destroy still works', async () => {
      const provider = await makeProvider();
      // User code cannot kill the agent (conformance-agent-protection.ts), so the agent dies by its own deadline.
      const handle = await provider.create(spec, { sandboxId: newId('sbx'), ownerId: OWNER_ID, expiresAtMs: Date.now() + 8_000 });
      try {
        requireCapabilities({ provider, handle, session: handle.session, spec }, 'exec');
        const closed = closedPromise(handle);
        expect((await handle.session.exec({ command: 'echo alive' })).stdout).toBe('alive\n');
        expect(await closed).toBeInstanceOf(Error);
        expect(handle.closed).toBe(true);
        expect(await handle.health()).toBe(false);
      } finally {
        await handle.destroy();
        await provider.close();
      }
    });

    it('shuts itself down when its lease deadline passes', async () => {
      const provider = await makeProvider();
      const handle = await provider.create(spec, { sandboxId: newId('sbx'), ownerId: OWNER_ID, expiresAtMs: Date.now() + 3_000 });
      try {
        await closedPromise(handle);
        expect(handle.closed).toBe(true);
      } finally {
        await handle.destroy();
        await provider.close();
      }
    });

    it('cleanup removes sandboxes of dead owners and keeps those of live ones', async () => {
      const creator = await makeProvider();
      const deadOwner = `conformance-dead-owner-${newId('own')}`;
      const orphan = await creator.create(spec, { sandboxId: newId('sbx'), ownerId: deadOwner, expiresAtMs: Date.now() + 600_000 });
      const kept = await creator.create(spec, { sandboxId: newId('sbx'), ownerId: OWNER_ID, expiresAtMs: Date.now() + 600_000 });
      const reaper = await makeProvider(); // a fresh provider, as after a restart: it knows only the labels/records
      try {
        const orphanClosed = closedPromise(orphan);
        const removed = await reaper.cleanup({ ownerAlive: (ownerId) => ownerId !== deadOwner });
        expect(removed).toBeGreaterThanOrEqual(1);
        await orphanClosed;
        expect(await kept.health()).toBe(true);
      } finally {
        await orphan.destroy();
        await kept.destroy();
        await creator.close();
        await reaper.close();
      }
    });
  });
}
