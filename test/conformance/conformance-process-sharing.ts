/**
 * Exec calls share one process space, as a shell session would: a background server started by one call is
 * visible to and killable from a later one (agents rely on `server &` ... `kill`). And what an exec request puts
 * in its env reaches only the user's process: LD_PRELOAD must not load user code into a launcher that runs
 * before the sandbox boundary is in place.
 */
import { describe, expect } from 'vitest';
import type { SandboxSpecInput } from '../../src/sandbox/spec.js';
import { itWithCapabilities, requireCapabilities, useSandbox, type MakeProvider } from './sandbox-fixture.js';

/** Pids of processes named `sleep`, from /proc (pgrep is not in every image). */
const SLEEP_PIDS = 'for p in /proc/[0-9]*; do [ "$(cat "$p/comm" 2>/dev/null)" = sleep ] && echo "${p#/proc/}"; done; true';

export function describeProcessSharingConformance(makeProvider: MakeProvider, spec: SandboxSpecInput): void {
  describe('processes across exec calls', () => {
    const fixture = useSandbox(makeProvider, spec);

    itWithCapabilities(['exec'], 'a background process started by one call is visible to and killable from a later call', async () => {
      requireCapabilities(fixture, 'exec');
      const { session } = fixture;
      const started = await session.exec({ command: 'sleep 1000 > /dev/null 2>&1 & echo $!' });
      const pid = started.stdout.trim();
      expect(pid).toMatch(/^\d+$/);

      expect((await session.exec({ command: SLEEP_PIDS })).stdout.split('\n')).toContain(pid);
      expect(await session.exec({ command: `kill ${pid}` })).toMatchObject({ exitCode: 0, stderr: '' });
      // Gone (or a zombie waiting for its reaper) once the signal landed: polled with a generous bound.
      const gone = await session.exec({
        command: `for i in $(seq 400); do { [ ! -e /proc/${pid} ] || grep -q "^State:.*Z" /proc/${pid}/status; } 2>/dev/null && echo gone && break; sleep 0.05; done`,
        timeoutMs: 60_000,
      });
      expect(gone.stdout).toBe('gone\n');
    });

    itWithCapabilities(['exec'], 'LD_PRELOAD in an exec env is loaded by the user process only', async () => {
      requireCapabilities(fixture, 'exec');
      const { session } = fixture;
      // Not an ELF file: every process whose dynamic loader honours LD_PRELOAD says so once on its stderr.
      expect((await session.exec({ command: 'printf "not a library" > preload.so && echo ok' })).stdout).toBe('ok\n');
      const result = await session.exec({ command: ['true'], env: { LD_PRELOAD: `${session.workspace}/preload.so` } });
      expect(result.exitCode).toBe(0);
      const loads = result.stderr.split('\n').filter((line) => line.includes('preload.so'));
      expect(loads).toHaveLength(1); // `true` itself, and nothing that started it
      expect(await fixture.handle.health()).toBe(true);
    });
  });
}
