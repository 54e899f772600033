/**
 * Hostile workloads. Each block gets its own sandbox, since a bomb may legitimately take its sandbox down; what
 * must hold is that the call returns a normal (failed) result or a typed error, and that the sandbox either still
 * works or reports itself closed. The host must be unaffected.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect } from 'vitest';
import type { SandboxSpecInput } from '../../src/sandbox/spec.js';
import { processNames, itWithCapabilities, requireCapabilities, useSandbox, type MakeProvider, type SandboxFixture } from './sandbox-fixture.js';

async function expectStillUsable(fixture: SandboxFixture): Promise<void> {
  if (fixture.handle.closed) return; // reported closed: acceptable, the pool replaces it
  expect((await fixture.session.exec({ command: 'echo alive', timeoutMs: 30_000 })).stdout).toBe('alive\n');
}

function hostStillWorks(): void {
  expect(spawnSync('true').status).toBe(0);
}

/** A loop that allocates (and touches) four times the memory limit in 64 MiB steps, then exits 0 if never stopped. */
function memoryBombCode(fixture: SandboxFixture): string {
  const steps = Math.ceil((fixture.spec.memoryMiB * 4) / 64);
  return `held = []\nfor _ in range(${steps}):\n    held.append(b"x" * (64 << 20))`;
}

export function describeAdversarialConformance(makeProvider: MakeProvider, spec: SandboxSpecInput): void {
  describe('adversarial: fork bomb', () => {
    const fixture = useSandbox(makeProvider, spec);
    itWithCapabilities(
      ['exec'],
      'is contained by the pids limit and fully killed when the call ends; sandbox and host keep working',
      { timeout: 120_000 },
      async () => {
        requireCapabilities(fixture, 'exec');
        // The first shell returns at once; its background copies hold the output pipes until the agent kills the group.
        const result = await fixture.session.exec({ command: 'bomb() { bomb | bomb & }; bomb; sleep 3', timeoutMs: 5_000 });
        expect(typeof result.durationMs).toBe('number');
        await expectStillUsable(fixture);
        if (!fixture.handle.closed) {
          const shells = (await processNames(fixture.session)).filter((name) => name === 'bash');
          expect(shells.length).toBeLessThanOrEqual(1); // only the shell running the check itself
        }
        hostStillWorks();
      },
    );
  });

  describe('adversarial: memory bomb in exec', () => {
    const fixture = useSandbox(makeProvider, spec);
    itWithCapabilities(['exec'], 'fails like a normal command (MemoryError or killed)', { timeout: 120_000 }, async () => {
      requireCapabilities(fixture, 'exec');
      const result = await fixture.session.exec({ command: ['python3', '-c', memoryBombCode(fixture)], timeoutMs: 60_000 });
      expect(result.timedOut).toBe(false);
      expect(result.exitCode).not.toBe(0);
      await expectStillUsable(fixture);
      hostStillWorks();
    });
  });

  describe('adversarial: memory bomb in python', () => {
    const fixture = useSandbox(makeProvider, spec);
    itWithCapabilities(['python'], 'returns an error value or a lost state, then the REPL works again', { timeout: 120_000 }, async () => {
      requireCapabilities(fixture, 'python');
      const result = await fixture.session.python({ code: memoryBombCode(fixture), timeoutMs: 60_000 });
      expect(result.timedOut).toBe(false);
      expect(result.error !== null || result.stateLost).toBe(true);
      if (!fixture.handle.closed) expect((await fixture.session.python({ code: '1 + 1' })).value).toBe('2');
      hostStillWorks();
    });
  });

  describe('adversarial: runaway output, loops and disk', () => {
    const fixture = useSandbox(makeProvider, spec);

    itWithCapabilities(['exec'], 'stops an infinite shell loop at the timeout', async () => {
      requireCapabilities(fixture, 'exec');
      const result = await fixture.session.exec({ command: 'while :; do :; done', timeoutMs: 1_000 });
      expect(result.timedOut).toBe(true);
      await expectStillUsable(fixture);
    });

    itWithCapabilities(['exec'], 'drains 1 GB of stdout, keeping only the capped prefix', { timeout: 300_000 }, async () => {
      requireCapabilities(fixture, 'exec');
      const result = await fixture.session.exec({ command: "head -c 1000000000 /dev/zero | tr '\\0' a", timeoutMs: 240_000 });
      expect(result).toMatchObject({ exitCode: 0, timedOut: false, stdoutTruncated: true });
      expect(result.stdout).toBe('a'.repeat(30_000));
    });

    itWithCapabilities(['exec'], 'reports a full workspace as a normal failure and recovers after cleanup', { timeout: 120_000 }, async () => {
      requireCapabilities(fixture, 'exec');
      // Twice the configured size: fails on a bounded workspace, and stays harmless if the bound were missing.
      const fill = await fixture.session.exec({ command: `head -c ${fixture.spec.workspaceMiB * 2}M /dev/zero > fill.bin`, timeoutMs: 60_000 });
      expect(fill.exitCode).not.toBe(0);
      expect(fill.stderr).toMatch(/no space left/i);
      await fixture.session.exec({ command: 'rm -f fill.bin' });
      await expectStillUsable(fixture);
    });
  });
}
