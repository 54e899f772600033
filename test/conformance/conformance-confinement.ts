import { describe, expect } from 'vitest';
import type { SandboxSpecInput } from '../../src/sandbox/spec.js';
import { expectCorralError, itWithCapabilities, requireCapabilities, useSandbox, type MakeProvider } from './sandbox-fixture.js';

/** File operations must stay inside the workspace: `..`, absolute paths and symlinks that lead out are refused. */
export function describeConfinementConformance(makeProvider: MakeProvider, spec: SandboxSpecInput): void {
  describe('workspace confinement', () => {
    const fixture = useSandbox(makeProvider, spec);

    itWithCapabilities(['files'], 'refuses path traversal and absolute paths outside the workspace', async () => {
      requireCapabilities(fixture, 'files');
      const files = fixture.session.files;
      await expectCorralError(files.read({ path: '../../etc/passwd' }), 'SBX_ERR_PERMISSION');
      await expectCorralError(files.read({ path: '/etc/passwd' }), 'SBX_ERR_PERMISSION');
      await expectCorralError(files.write({ path: '../escape.txt', content: 'x' }), 'SBX_ERR_PERMISSION');
      await expectCorralError(files.list({ path: '..' }), 'SBX_ERR_PERMISSION');
      await expectCorralError(files.remove({ path: '../..', recursive: true }), 'SBX_ERR_PERMISSION');
      await expectCorralError(files.mkdir({ path: 'a/../../outside' }), 'SBX_ERR_PERMISSION');
    });

    itWithCapabilities(['files'], 'accepts absolute paths inside the workspace and `..` that stays inside', async () => {
      requireCapabilities(fixture, 'files');
      const files = fixture.session.files;
      await files.write({ path: `${fixture.session.workspace}/inside/file.txt`, content: 'ok' });
      expect((await files.read({ path: 'inside/../inside/file.txt' }))?.content).toBe('ok');
    });

    itWithCapabilities(['files', 'exec'], 'refuses to read, write, list or search through a symlink to /', async () => {
      requireCapabilities(fixture, 'files', 'exec');
      const files = fixture.session.files;
      const link = await fixture.session.exec({ command: 'ln -s / rootlink && ln -s /etc/passwd passwd-link && echo made' });
      expect(link.stdout).toBe('made\n');
      await expectCorralError(files.read({ path: 'rootlink/etc/passwd' }), 'SBX_ERR_PERMISSION');
      await expectCorralError(files.read({ path: 'passwd-link' }), 'SBX_ERR_PERMISSION');
      await expectCorralError(files.write({ path: 'rootlink/tmp/escaped.txt', content: 'x' }), 'SBX_ERR_PERMISSION');
      await expectCorralError(files.write({ path: 'passwd-link', content: 'x' }), 'SBX_ERR_PERMISSION');
      await expectCorralError(files.edit({ path: 'passwd-link', oldText: 'root', newText: 'toor' }), 'SBX_ERR_PERMISSION');
      await expectCorralError(files.list({ path: 'rootlink' }), 'SBX_ERR_PERMISSION');
      await expectCorralError(files.grep({ pattern: 'root', path: 'rootlink/etc' }), 'SBX_ERR_PERMISSION');
      // Walks do not follow the link, so a workspace-wide search cannot leak the host tree either.
      const everything = await files.glob({ pattern: '**' });
      expect(everything.filter((path) => path.startsWith('rootlink/'))).toEqual([]);
      expect(await files.grep({ pattern: 'root:' })).toEqual([]);
      // The link itself may be inspected and removed: that touches nothing outside.
      expect((await files.stat({ path: 'rootlink' }))?.type).toBe('symlink');
      expect(await files.remove({ path: 'rootlink' })).toBe(true);
      expect((await fixture.session.exec({ command: 'test -d /etc && echo still-there' })).stdout).toBe('still-there\n');
    });
  });
}
