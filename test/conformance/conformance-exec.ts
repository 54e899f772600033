import { describe, expect } from 'vitest';
import type { SandboxSpecInput } from '../../src/sandbox/spec.js';
import { processNames, itWithCapabilities, requireCapabilities, SPEC_ENV_NAME, useSandbox, type MakeProvider } from './sandbox-fixture.js';

export function describeExecConformance(makeProvider: MakeProvider, spec: SandboxSpecInput): void {
  describe('exec', () => {
    const fixture = useSandbox(makeProvider, spec);

    itWithCapabilities(['exec'], 'returns stdout, stderr and the exit code', async () => {
      requireCapabilities(fixture, 'exec');
      const result = await fixture.session.exec({ command: 'echo out; echo err >&2; exit 3' });
      expect(result).toMatchObject({ exitCode: 3, signal: null, stdout: 'out\n', stderr: 'err\n', timedOut: false, stdoutTruncated: false });
    });

    itWithCapabilities(['exec'], 'runs an argv array without a shell, and reports a missing program as exit 127', async () => {
      requireCapabilities(fixture, 'exec');
      expect((await fixture.session.exec({ command: ['printf', '%s|', 'a b', '$HOME'] })).stdout).toBe('a b|$HOME|');
      expect((await fixture.session.exec({ command: ['no-such-program-xyz'] })).exitCode).toBe(127);
    });

    itWithCapabilities(['exec', 'files'], 'applies env (call and spec) and cwd relative to the workspace, and feeds stdin', async () => {
      requireCapabilities(fixture, 'exec', 'files');
      await fixture.session.files.mkdir({ path: 'sub/dir' });
      const result = await fixture.session.exec({
        command: `echo "$GREETING $${SPEC_ENV_NAME}"; pwd; cat`,
        env: { GREETING: 'hi' },
        cwd: 'sub/dir',
        stdin: 'piped',
      });
      expect(result.stdout).toBe(`hi from-spec\n${fixture.session.workspace}/sub/dir\npiped`);
    });

    itWithCapabilities(['exec'], 'caps output per stream, flags it, and never blocks the child', async () => {
      requireCapabilities(fixture, 'exec');
      const command = "head -c 5000000 /dev/zero | tr '\\0' x; head -c 5000 /dev/zero | tr '\\0' y >&2; echo finished >&2";
      const result = await fixture.session.exec({ command, maxOutputChars: 1000 });
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toBe('x'.repeat(1000));
      expect(result.stdoutTruncated).toBe(true);
      expect(result.stderr).toBe('y'.repeat(1000));
      expect(result.stderrTruncated).toBe(true);
    });

    itWithCapabilities(['exec'], 'decodes invalid UTF-8 with replacement characters', async () => {
      requireCapabilities(fixture, 'exec');
      expect((await fixture.session.exec({ command: "printf 'a\\377b'" })).stdout).toBe('a\uFFFDb');
    });

    itWithCapabilities(['exec'], 'kills the whole process tree on timeout', async () => {
      requireCapabilities(fixture, 'exec');
      const result = await fixture.session.exec({ command: 'sleep 1000 & sleep 1000 & wait', timeoutMs: 1_000 });
      expect(result.timedOut).toBe(true);
      expect(result.exitCode).toBeNull();
      expect(await processNames(fixture.session)).not.toContain('sleep');
    });

    itWithCapabilities(['exec'], 'kills children that ignore SIGTERM on timeout', async () => {
      requireCapabilities(fixture, 'exec');
      const result = await fixture.session.exec({ command: "trap '' TERM; sleep 1000 > /dev/null 2>&1 & trap '' TERM; wait", timeoutMs: 1_000 });
      expect(result.timedOut).toBe(true);
      expect(await processNames(fixture.session)).not.toContain('sleep');
    });

    itWithCapabilities(['exec'], 'returns when the command exits even if a background child still holds its output', async () => {
      requireCapabilities(fixture, 'exec');
      const result = await fixture.session.exec({ command: 'sleep 1000 & echo started', timeoutMs: 60_000 });
      expect(result).toMatchObject({ exitCode: 0, stdout: 'started\n', timedOut: false });
      expect(await processNames(fixture.session)).not.toContain('sleep');
    });

    itWithCapabilities(['exec'], 'runs 50 commands concurrently in one sandbox', async () => {
      requireCapabilities(fixture, 'exec');
      const results = await Promise.all(Array.from({ length: 50 }, (_, index) => fixture.session.exec({ command: `sleep 0.2; echo ${index}` })));
      expect(results.map((result) => result.stdout)).toEqual(Array.from({ length: 50 }, (_, index) => `${index}\n`));
      expect(results.every((result) => result.exitCode === 0)).toBe(true);
    });
  });
}
