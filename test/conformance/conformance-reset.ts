import { describe, expect, it } from 'vitest';
import type { SandboxSpecInput } from '../../src/sandbox/spec.js';
import { processNames, itWithCapabilities, requireCapabilities, useSandbox, type MakeProvider } from './sandbox-fixture.js';

export function describeResetConformance(makeProvider: MakeProvider, spec: SandboxSpecInput): void {
  describe('reset', () => {
    const fixture = useSandbox(makeProvider, spec);

    itWithCapabilities(['exec', 'files', 'python'], 'leaves no process, file or REPL state behind, and proves it', async () => {
      requireCapabilities(fixture, 'exec', 'files', 'python');
      const { session } = fixture;
      // A detached daemon that survives its exec call, files in the workspace and /tmp, and REPL state.
      const setup = await session.exec({
        command: '(sleep 1000 > /dev/null 2>&1 &); echo data > /tmp/left.txt; mkdir -p deep/er; echo data > deep/er/f.txt; chmod 000 deep; echo ok',
      });
      expect(setup.stdout).toBe('ok\n');
      expect(await processNames(session)).toContain('sleep');
      await session.python({ code: 'remembered = 1' });

      const report = await fixture.handle.reset();
      expect(report).toMatchObject({ ok: true });
      expect(report.leftovers ?? []).toEqual([]);

      expect(await session.files.list({ path: '.' })).toEqual([]);
      expect((await session.exec({ command: 'ls -A /tmp' })).stdout).toBe('');
      expect(await processNames(session)).not.toContain('sleep');
      expect((await session.python({ code: 'remembered' })).error?.name).toBe('NameError');
      expect((await session.exec({ command: 'echo works > again.txt && cat again.txt' })).stdout).toBe('works\n');
    });

    it('answers health checks', async () => {
      expect(await fixture.handle.health()).toBe(true);
    });
  });
}
