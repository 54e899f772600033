/**
 * Privilege hardening, checked from inside user code: not root (not even root mapped from a user namespace), no
 * writable /proc/sys knobs, a read-only system outside the workspace and scratch dirs, no nested user namespaces,
 * and nothing planted outside the workspace and scratch dirs survives a reset.
 */
import { describe, expect } from 'vitest';
import type { SandboxSession } from '../../src/sandbox/session.js';
import type { SandboxSpecInput } from '../../src/sandbox/spec.js';
import { itWithCapabilities, requireCapabilities, useSandbox, type MakeProvider } from './sandbox-fixture.js';

/** Host-level knobs: writing core_pattern alone runs a program as host root on the next crash. */
const SYSCTL_FILES = ['/proc/sys/kernel/core_pattern', '/proc/sys/vm/drop_caches', '/proc/sys/fs/file-max', '/proc/sys/vm/overcommit_memory'];
const SYSTEM_DIRECTORIES = ['/', '/etc', '/opt', '/opt/corral', '/dev', '/usr'];

/** Prints JSON: the euid, the host uid it maps to (null when unreadable), and every privileged act that worked. */
const PRIVILEGE_PROBE = `
import ctypes, json, os
def host_uid(uid):
    try:
        for line in open("/proc/self/uid_map"):
            inside, outside, count = (int(field) for field in line.split())
            if inside <= uid < inside + count:
                return outside + uid - inside
    except OSError:
        return None
    return None
identity = {"euid": os.geteuid(), "hostUid": host_uid(os.geteuid())}  # before unshare, which would unmap it
succeeded = []
for path in ${JSON.stringify(SYSCTL_FILES)}:
    try:
        os.close(os.open(path, os.O_WRONLY))  # no write: opening is the privilege that must be missing
        succeeded.append("open for writing " + path)
    except OSError:
        pass
for directory in ${JSON.stringify(SYSTEM_DIRECTORIES)}:
    path = os.path.join(directory, "corral-hardening-probe-%d" % os.getpid())
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        os.unlink(path)
        succeeded.append("create a file in " + directory)
    except OSError:
        pass
if ctypes.CDLL(None, use_errno=True).unshare(0x10000000) == 0:  # CLONE_NEWUSER
    succeeded.append("unshare(CLONE_NEWUSER)")
print(json.dumps({**identity, "succeeded": succeeded}))
`;

/** Creates a marker in every writable directory outside the workspace, /tmp, /dev/shm, /proc and /sys; prints their paths. */
const PLANT_EVERYWHERE = `
import json, os, sys
token, workspace = sys.argv[1], os.path.realpath(sys.argv[2])
skipped = {workspace, "/tmp", "/dev/shm", "/proc", "/sys"}
planted = []
for current, directories, _ in os.walk("/", onerror=lambda error: None):
    directories[:] = [name for name in directories if os.path.join(current, name) not in skipped and not os.path.islink(os.path.join(current, name))]
    if current in skipped:
        continue
    path = os.path.join(current, token)
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        planted.append(path)
    except OSError:
        pass
print(json.dumps(planted))
`;

async function runPython(session: SandboxSession, code: string, args: string[] = []): Promise<unknown> {
  const result = await session.exec({ command: ['python3', '-c', code, ...args], timeoutMs: 120_000 });
  expect(result, result.stderr).toMatchObject({ exitCode: 0, timedOut: false });
  return JSON.parse(result.stdout);
}

export function describeHardeningConformance(makeProvider: MakeProvider, spec: SandboxSpecInput): void {
  describe('privilege hardening', () => {
    const fixture = useSandbox(makeProvider, spec);

    itWithCapabilities(
      ['exec'],
      'runs commands as a non-root uid that maps to no host root, unable to reach host knobs, system dirs or new user namespaces',
      async () => {
        requireCapabilities(fixture, 'exec');
        const probe = (await runPython(fixture.session, PRIVILEGE_PROBE)) as { euid: number; hostUid: number | null; succeeded: string[] };
        expect({ root: probe.euid === 0, mapsToHostRoot: probe.hostUid === 0, succeeded: probe.succeeded }).toEqual({
          root: false,
          mapsToHostRoot: false,
          succeeded: [],
        });
      },
    );

    itWithCapabilities(['python'], 'runs REPL code as a non-root uid', async () => {
      requireCapabilities(fixture, 'python');
      const result = await fixture.session.python({ code: 'import os; os.geteuid() != 0 and os.getuid() != 0' });
      expect(result.value).toBe('True');
    });
  });

  describe('privilege hardening: reset', () => {
    const fixture = useSandbox(makeProvider, spec);

    itWithCapabilities(['exec'], 'leaves nothing planted outside the workspace and scratch dirs after a reset', { timeout: 300_000 }, async () => {
      requireCapabilities(fixture, 'exec');
      const token = `corral-planted-${Date.now()}`;
      const planted = (await runPython(fixture.session, PLANT_EVERYWHERE, [token, fixture.session.workspace])) as string[];
      const report = await fixture.handle.reset();
      expect(report).toMatchObject({ ok: true });
      const survivors = await fixture.session.exec({
        command: ['sh', '-c', 'for path in "$@"; do [ -e "$path" ] && echo "$path"; done; true', 'check', ...planted],
      });
      expect(survivors.stdout.split('\n').filter(Boolean)).toEqual([]);
    });
  });
}
