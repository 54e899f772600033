/** What a sandbox must not reach: the network (when the spec says none), host files, the host's environment. */
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import type { SandboxSpecInput } from '../../src/sandbox/spec.js';
import { itWithCapabilities, requireCapabilities, useSandbox, type MakeProvider } from './sandbox-fixture.js';

const SECRET_ENV_NAME = 'CORRAL_CONFORMANCE_HOST_SECRET';

export function describeIsolationConformance(makeProvider: MakeProvider, spec: SandboxSpecInput): void {
  describe('isolation from the host', () => {
    const secret = randomBytes(12).toString('hex');
    const markers = [join(tmpdir(), `corral-host-marker-${secret}`), join(homedir(), `.corral-host-marker-${secret}`)];
    beforeAll(() => {
      process.env[SECRET_ENV_NAME] = secret; // set before the sandbox exists, so it could leak if the backend let it
      for (const marker of markers) {
        try {
          writeFileSync(marker, secret);
        } catch {
          // an unwritable home directory: that marker is simply not checked
        }
      }
    });
    afterAll(() => {
      delete process.env[SECRET_ENV_NAME];
      for (const marker of markers) rmSync(marker, { force: true });
    });
    const fixture = useSandbox(makeProvider, spec);

    itWithCapabilities(['python'], 'cannot connect out when the spec says network: none', async () => {
      requireCapabilities(fixture, 'python');
      expect(fixture.spec.network).toBe('none'); // the suite always runs with the default: no network
      const code = [
        'import socket',
        'probe = socket.socket()',
        'probe.settimeout(3)',
        'try:',
        '    probe.connect(("1.1.1.1", 53))',
        '    outcome = "connected"',
        'except OSError:',
        '    outcome = "blocked"',
        'outcome',
      ].join('\n');
      expect((await fixture.session.python({ code, timeoutMs: 30_000 })).value).toBe("'blocked'");
    });

    itWithCapabilities(['exec'], 'cannot see host files or the host environment', async () => {
      requireCapabilities(fixture, 'exec');
      for (const marker of markers) {
        const probe = await fixture.session.exec({ command: ['sh', '-c', 'test -e "$1" && echo visible || echo hidden', 'probe', marker] });
        expect(probe.stdout).toBe('hidden\n');
      }
      const environ = await fixture.session.exec({ command: "cat /proc/1/environ /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n'; env" });
      expect(environ.stdout).not.toContain(secret);
      const root = await fixture.session.exec({ command: 'ls -A /root 2>/dev/null; true' });
      expect(root.stdout).not.toContain('.corral-host-marker');
    });
  });
}
