/**
 * Fork (capability 'fork'): children start with copies of the parent's writable places at the moment of the fork,
 * then live apart: no child sees another's later writes, the parent sees none of theirs, nothing running carries
 * over, and each child is an ordinary sandbox (symlinks stay links that resolve inside it, never on the host).
 * A backend without the capability refuses with SBX_ERR_UNSUPPORTED.
 */
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/core/ids.js';
import { OWNER_ID } from '../../src/core/owner.js';
import { forkHandle } from '../../src/sandbox/fork.js';
import type { SandboxHandle } from '../../src/sandbox/provider.js';
import type { SandboxSpecInput } from '../../src/sandbox/spec.js';
import { expectCorralError, processNames, useSandbox, type MakeProvider } from './sandbox-fixture.js';

const sh = async (handle: SandboxHandle, command: string) => {
  const result = await handle.session.exec({ command, timeoutMs: 30_000 });
  return result.stdout.trim();
};

export function describeForkConformance(makeProvider: MakeProvider, spec: SandboxSpecInput): void {
  describe('fork', () => {
    const fixture = useSandbox(makeProvider, spec);
    const hostMarker = join(tmpdir(), `corral-fork-marker-${randomBytes(8).toString('hex')}`);
    let children: SandboxHandle[] = [];

    beforeAll(async () => {
      writeFileSync(hostMarker, 'host secret');
      const parent = fixture.handle;
      expect(parent.session.capabilities.has('fork')).toBe(true);
      await sh(
        parent,
        [
          'mkdir -p nested/deeper && printf parent > nested/deeper/file.txt',
          'printf "#!/bin/sh\\necho ran\\n" > tool.sh && chmod 750 tool.sh',
          'head -c 300000 /dev/urandom > blob.bin && sha256sum blob.bin > blob.sum',
          'printf scratch > /tmp/scratch.txt',
          `ln -s ${hostMarker} host-link`,
          '(sleep 600 > /dev/null 2>&1 &)',
        ].join(' && '),
      );
      children = await forkHandle(parent, 2, () =>
        fixture.provider.create(fixture.spec, { sandboxId: newId('sbx'), ownerId: OWNER_ID, expiresAtMs: Date.now() + 10 * 60_000 }),
      );
    }, 120_000);

    afterAll(async () => {
      rmSync(hostMarker, { force: true });
      await Promise.all(children.map((child) => child.destroy()));
    });

    it("children see the parent's files, modes and /tmp as they were at the fork", async () => {
      for (const child of children) {
        expect(child.session.id).not.toBe(fixture.session.id);
        expect(await sh(child, 'cat nested/deeper/file.txt')).toBe('parent');
        expect(await sh(child, './tool.sh && stat -c %a tool.sh')).toBe('ran\n750');
        expect(await sh(child, 'sha256sum -c blob.sum')).toBe('blob.bin: OK');
        expect(await sh(child, 'cat /tmp/scratch.txt')).toBe('scratch');
        expect((await child.session.files.read({ path: 'nested/deeper/file.txt' }))?.content).toBe('parent');
      }
    });

    it("children do not see each other's later writes, and the parent is unchanged", async () => {
      const [first, second] = children as [SandboxHandle, SandboxHandle];
      await sh(first, 'printf first > nested/deeper/file.txt && printf only-first > first.txt && rm blob.bin');
      await sh(second, 'printf second > nested/deeper/file.txt');
      await sh(fixture.handle, 'printf later > after-fork.txt');
      expect(await sh(second, 'cat nested/deeper/file.txt; test -e first.txt || echo " no-first"; test -e blob.bin && echo " has-blob"')).toBe(
        'second no-first\n has-blob',
      );
      expect(await sh(first, 'cat nested/deeper/file.txt; test -e after-fork.txt || echo " no-later"')).toBe('first no-later');
      expect(await sh(fixture.handle, 'cat nested/deeper/file.txt; echo; ls first.txt 2>/dev/null; sha256sum -c blob.sum')).toBe('parent\nblob.bin: OK');
    });

    it('nothing running carries over, and copied files belong to the sandbox user', async () => {
      expect(await processNames(fixture.session)).toContain('sleep');
      for (const child of children) {
        expect(await processNames(child.session)).not.toContain('sleep');
        expect(await sh(child, 'test -O tool.sh && test -O /tmp/scratch.txt && rm /tmp/scratch.txt && echo owned')).toBe('owned');
      }
    });

    it('a symlink stays a link that resolves inside the child, never to the host file it names', async () => {
      for (const child of children) {
        expect(await sh(child, `readlink host-link; cat host-link 2>/dev/null || echo unreadable`)).toBe(`${hostMarker}\nunreadable`);
      }
    });

    it('refuses a count that is not a positive whole number', async () => {
      await expectCorralError(
        forkHandle(fixture.handle, 0, () => Promise.reject(new Error('never called'))),
        'SBX_ERR_INVALID_ARGUMENT',
      );
    });
  });
}

/** For backends that do not declare 'fork': the refusal is typed, and nothing is created. */
export function describeForkRefusalConformance(makeProvider: MakeProvider, spec: SandboxSpecInput): void {
  describe('fork refusal', () => {
    const fixture = useSandbox(makeProvider, spec);
    it('refuses to fork with SBX_ERR_UNSUPPORTED and creates no child', async () => {
      expect(fixture.session.capabilities.has('fork')).toBe(false);
      let created = 0;
      await expectCorralError(
        forkHandle(fixture.handle, 2, async () => {
          created++;
          throw new Error('must not be called');
        }),
        'SBX_ERR_UNSUPPORTED',
      );
      expect(created).toBe(0);
    });
  });
}
