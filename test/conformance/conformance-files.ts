import { randomBytes } from 'node:crypto';
import { describe, expect } from 'vitest';
import { expectCorralError, itWithCapabilities, requireCapabilities, useSandbox, type MakeProvider } from './sandbox-fixture.js';
import type { SandboxSpecInput } from '../../src/sandbox/spec.js';

export function describeFileConformance(makeProvider: MakeProvider, spec: SandboxSpecInput): void {
  describe('files', () => {
    const fixture = useSandbox(makeProvider, spec);

    itWithCapabilities(['files'], 'round-trips UTF-8 text and reports its size in bytes', async () => {
      requireCapabilities(fixture, 'files');
      const text = 'héllo wörld ✓\nsecond line\n';
      const written = await fixture.session.files.write({ path: 'notes/hello.txt', content: text });
      expect(written.sizeBytes).toBe(Buffer.byteLength(text));
      const read = await fixture.session.files.read({ path: 'notes/hello.txt' });
      expect(read).toEqual({ content: text, encoding: 'utf8', sizeBytes: Buffer.byteLength(text), truncated: false });
    });

    itWithCapabilities(['files'], 'round-trips every byte value through base64', async () => {
      requireCapabilities(fixture, 'files');
      const bytes = Buffer.from(Array.from({ length: 256 }, (_, index) => index));
      await fixture.session.files.write({ path: 'binary.bin', content: bytes.toString('base64'), encoding: 'base64' });
      const read = await fixture.session.files.read({ path: 'binary.bin', encoding: 'base64' });
      expect(Buffer.from(read?.content ?? '', 'base64').equals(bytes)).toBe(true);
      expect(read?.sizeBytes).toBe(256);
    });

    itWithCapabilities(['files'], 'round-trips a 5 MB file', async () => {
      requireCapabilities(fixture, 'files');
      const bytes = randomBytes(5 * 1024 * 1024);
      await fixture.session.files.write({ path: 'large.bin', content: bytes.toString('base64'), encoding: 'base64' });
      const read = await fixture.session.files.read({ path: 'large.bin', encoding: 'base64' });
      expect(read?.sizeBytes).toBe(bytes.length);
      expect(Buffer.from(read?.content ?? '', 'base64').equals(bytes)).toBe(true);
    });

    itWithCapabilities(['files'], 'reads a prefix with maxBytes and flags the truncation', async () => {
      requireCapabilities(fixture, 'files');
      await fixture.session.files.write({ path: 'digits.txt', content: '0123456789' });
      const read = await fixture.session.files.read({ path: 'digits.txt', maxBytes: 4 });
      expect(read).toMatchObject({ content: '0123', truncated: true, sizeBytes: 10 });
    });

    itWithCapabilities(['files'], 'returns null, false or [] for missing paths instead of throwing', async () => {
      requireCapabilities(fixture, 'files');
      const files = fixture.session.files;
      expect(await files.read({ path: 'missing.txt' })).toBeNull();
      expect(await files.stat({ path: 'missing.txt' })).toBeNull();
      expect(await files.list({ path: 'missing-directory' })).toBeNull();
      expect(await files.edit({ path: 'missing.txt', oldText: 'a', newText: 'b' })).toBeNull();
      expect(await files.remove({ path: 'missing.txt' })).toBe(false);
      expect(await files.glob({ pattern: '*', path: 'missing-directory' })).toEqual([]);
    });

    itWithCapabilities(['files'], 'edits by exact replacement and rejects absent or ambiguous old text', async () => {
      requireCapabilities(fixture, 'files');
      const files = fixture.session.files;
      await files.write({ path: 'edit.txt', content: 'alpha beta alpha' });
      await expectCorralError(files.edit({ path: 'edit.txt', oldText: 'gamma', newText: 'x' }), 'SBX_ERR_INVALID_ARGUMENT');
      await expectCorralError(files.edit({ path: 'edit.txt', oldText: 'alpha', newText: 'x' }), 'SBX_ERR_INVALID_ARGUMENT');
      expect(await files.edit({ path: 'edit.txt', oldText: 'beta', newText: 'BETA' })).toEqual({ replacements: 1 });
      expect(await files.edit({ path: 'edit.txt', oldText: 'alpha', newText: 'A', replaceAll: true })).toEqual({ replacements: 2 });
      expect((await files.read({ path: 'edit.txt' }))?.content).toBe('A BETA A');
    });

    itWithCapabilities(['files'], 'lists, stats, makes and removes directories', async () => {
      requireCapabilities(fixture, 'files');
      const files = fixture.session.files;
      await files.mkdir({ path: 'tree/inner' });
      await files.write({ path: 'tree/inner/leaf.txt', content: 'leaf' });
      await files.write({ path: 'tree/top.txt', content: 'top' });
      expect(await files.list({ path: 'tree' })).toEqual([
        { name: 'inner', type: 'directory', sizeBytes: expect.any(Number) },
        { name: 'top.txt', type: 'file', sizeBytes: 3 },
      ]);
      expect(await files.stat({ path: 'tree/top.txt' })).toMatchObject({ type: 'file', sizeBytes: 3 });
      expect((await files.stat({ path: `${fixture.session.workspace}/tree` }))?.type).toBe('directory');
      await expectCorralError(files.remove({ path: 'tree' }), 'SBX_ERR_INVALID_ARGUMENT');
      expect(await files.remove({ path: 'tree', recursive: true })).toBe(true);
      expect(await files.stat({ path: 'tree' })).toBeNull();
    });

    itWithCapabilities(['files'], 'finds files with glob and lines with grep', async () => {
      requireCapabilities(fixture, 'files');
      const files = fixture.session.files;
      await files.write({ path: 'search/a.py', content: 'import os\nprint("needle")\n' });
      await files.write({ path: 'search/deep/b.py', content: 'NEEDLE = 1\n' });
      await files.write({ path: 'search/c.txt', content: 'needle in text\n' });
      expect(await files.glob({ pattern: '**/*.py', path: 'search' })).toEqual(['search/a.py', 'search/deep/b.py']);
      expect(await files.grep({ pattern: 'needle', path: 'search', glob: '*.py', ignoreCase: true })).toEqual([
        { path: 'search/a.py', line: 2, text: 'print("needle")' },
        { path: 'search/deep/b.py', line: 1, text: 'NEEDLE = 1' },
      ]);
      expect(await files.grep({ pattern: 'needle', path: 'search', maxResults: 1 })).toHaveLength(1);
    });
  });
}
