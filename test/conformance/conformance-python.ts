import { describe, expect } from 'vitest';
import type { SandboxSpecInput } from '../../src/sandbox/spec.js';
import { itWithCapabilities, requireCapabilities, useSandbox, type MakeProvider } from './sandbox-fixture.js';

export function describePythonConformance(makeProvider: MakeProvider, spec: SandboxSpecInput): void {
  describe('python REPL', () => {
    const fixture = useSandbox(makeProvider, spec);

    itWithCapabilities(['python'], 'keeps state across calls and returns the trailing expression like Jupyter', async () => {
      requireCapabilities(fixture, 'python');
      const python = fixture.session.python.bind(fixture.session);
      expect(await python({ code: 'x = 41' })).toMatchObject({ value: null, error: null, stateLost: false });
      expect(await python({ code: 'print("side")\nx + 1' })).toMatchObject({ stdout: 'side\n', value: '42', error: null });
      expect((await python({ code: '"text"' })).value).toBe("'text'");
      expect((await python({ code: 'None' })).value).toBeNull();
    });

    itWithCapabilities(['python'], 'captures output written at the file-descriptor level by subprocesses', async () => {
      requireCapabilities(fixture, 'python');
      const result = await fixture.session.python({ code: 'import os, sys\nos.system("echo from-shell")\nprint("to-stderr", file=sys.stderr)' });
      expect(result.stdout).toBe('from-shell\n');
      expect(result.stderr).toBe('to-stderr\n');
    });

    itWithCapabilities(['python'], 'returns exceptions and syntax errors as values, keeping state', async () => {
      requireCapabilities(fixture, 'python');
      const python = fixture.session.python.bind(fixture.session);
      await python({ code: 'kept = 7' });
      const failure = await python({ code: 'def f():\n    return 1 / 0\nf()' });
      expect(failure.error).toMatchObject({ name: 'ZeroDivisionError', message: 'division by zero' });
      expect(failure.error?.traceback).toContain('ZeroDivisionError');
      expect(failure.error?.traceback).toContain('return 1 / 0');
      expect(failure.stateLost).toBe(false);
      expect((await python({ code: 'def broken(:' })).error?.name).toBe('SyntaxError');
      expect((await python({ code: 'kept' })).value).toBe('7');
    });

    itWithCapabilities(['python'], 'caps print output and flags it', async () => {
      requireCapabilities(fixture, 'python');
      const result = await fixture.session.python({ code: 'print("a" * 100000)', maxOutputChars: 100 });
      expect(result.stdout).toBe('a'.repeat(100));
      expect(result.stdoutTruncated).toBe(true);
    });

    itWithCapabilities(['python'], 'restarts after the interpreter dies and reports the lost state', async () => {
      requireCapabilities(fixture, 'python');
      const python = fixture.session.python.bind(fixture.session);
      await python({ code: 'doomed = 1' });
      const crash = await python({ code: 'import os; os._exit(1)' });
      expect(crash.stateLost).toBe(true);
      expect(crash.error).not.toBeNull();
      const after = await python({ code: 'doomed' });
      expect(after.error?.name).toBe('NameError');
      expect(after.stateLost).toBe(false);
    });

    itWithCapabilities(['python'], 'stops an infinite loop at the timeout and restarts the REPL', async () => {
      requireCapabilities(fixture, 'python');
      const python = fixture.session.python.bind(fixture.session);
      const looping = await python({ code: 'print("before")\nwhile True: pass', timeoutMs: 1_000 });
      expect(looping).toMatchObject({ timedOut: true, stateLost: true, stdout: 'before\n' });
      expect((await python({ code: '6 * 7' })).value).toBe('42');
    });

    itWithCapabilities(['python'], 'resetPython discards the state', async () => {
      requireCapabilities(fixture, 'python');
      const python = fixture.session.python.bind(fixture.session);
      await python({ code: 'forgotten = 1' });
      await fixture.session.resetPython();
      expect((await python({ code: 'forgotten' })).error?.name).toBe('NameError');
    });
  });
}
