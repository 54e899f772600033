/**
 * User code cannot reach the in-sandbox agent: it cannot open or list the agent's descriptors (the JSON-lines
 * protocol pipes, through which it could forge replies or flood the host), write a forged reply into them, ptrace
 * it or signal it, and it does not run as root or as the agent's uid. The probe runs from exec and from the REPL
 * and finds the agent by scanning /proc for a cmdline containing agent.py; a backend that hides the agent in
 * another PID namespace passes because there is nothing to reach. A reset then leaves nothing user code did.
 */
import { describe, expect } from 'vitest';
import type { SandboxSpecInput } from '../../src/sandbox/spec.js';
import { itWithCapabilities, requireCapabilities, useSandbox, type MakeProvider } from './sandbox-fixture.js';

/** Prints one JSON object: the probe's uid and, per visible agent process, every way in that worked. */
const PROBE = String.raw`
import ctypes, json, os
libc = ctypes.CDLL(None, use_errno=True)
me = os.getpid()
forged = b'{"id":1,"ok":true,"result":{"ok":true,"leftovers":[],"durationMs":1}}\n'
def succeeded(action):
    try:
        action()
        return True
    except OSError:
        return False
def open_fd(path, flags):  # O_NONBLOCK: a FIFO without a peer must fail, not hang the probe
    os.close(os.open(path, flags | os.O_NONBLOCK))
def write_forged(path):
    fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    try:
        os.write(fd, forged)
    finally:
        os.close(fd)
agents = []
for entry in os.listdir("/proc"):
    if not entry.isdigit() or int(entry) == me:
        continue
    pid = int(entry)
    try:
        argv = open(f"/proc/{pid}/cmdline", "rb").read().decode("utf-8", "replace").split("\0")
        status = dict(line.split(":", 1) for line in open(f"/proc/{pid}/status") if ":" in line)
    except OSError:
        continue
    if not any(part.endswith("agent.py") for part in argv):  # a launcher whose argv holds this probe is not it
        continue
    found = {"pid": pid, "uid": int(status["Uid"].split()[0]), "ways_in": []}
    for fd in (0, 1, 2):
        if succeeded(lambda: open_fd(f"/proc/{pid}/fd/{fd}", os.O_RDONLY)):
            found["ways_in"].append(f"open fd/{fd} for reading")
    if succeeded(lambda: os.listdir(f"/proc/{pid}/fd")):
        found["ways_in"].append("list fd/")
    for fd in range(64):
        if succeeded(lambda: write_forged(f"/proc/{pid}/fd/{fd}")):
            found["ways_in"].append(f"wrote a forged reply into fd/{fd}")
    if succeeded(lambda: os.kill(pid, 0)):
        found["ways_in"].append("signal (kill 0)")
    if libc.ptrace(16, pid, None, None) == 0:  # PTRACE_ATTACH
        libc.ptrace(17, pid, None, None)  # PTRACE_DETACH
        found["ways_in"].append("ptrace attach")
    if succeeded(lambda: open(f"/proc/{pid}/environ", "rb").read(1)):
        found["ways_in"].append("read environ")
    agents.append(found)
print(json.dumps({"uid": os.getuid(), "agents": agents}))
`;

interface ProbeReport {
  uid: number;
  agents: Array<{ pid: number; uid: number; ways_in: string[] }>;
}

function expectAgentOutOfReach(report: ProbeReport): void {
  expect(report.uid).not.toBe(0);
  for (const agent of report.agents) {
    expect({ pid: agent.pid, waysIn: agent.ways_in }).toEqual({ pid: agent.pid, waysIn: [] });
    expect(agent.uid).not.toBe(report.uid);
  }
}

export function describeAgentProtectionConformance(makeProvider: MakeProvider, spec: SandboxSpecInput): void {
  describe('agent protection', () => {
    const fixture = useSandbox(makeProvider, spec);

    itWithCapabilities(['exec'], 'exec: user code cannot open, list, write, signal or ptrace the agent', async () => {
      const result = await fixture.session.exec({ command: ['python3', '-c', PROBE], timeoutMs: 60_000 });
      expect(result.stderr).toBe('');
      expectAgentOutOfReach(JSON.parse(result.stdout) as ProbeReport);
      expect(await fixture.handle.health()).toBe(true); // nothing forged reached the host
    });

    itWithCapabilities(['python'], 'python: the REPL cannot open, list, write, signal or ptrace the agent', async () => {
      requireCapabilities(fixture, 'python');
      const result = await fixture.session.python({ code: PROBE, timeoutMs: 60_000 });
      expect(result.error).toBeNull();
      expectAgentOutOfReach(JSON.parse(result.stdout) as ProbeReport);
      expect(await fixture.handle.health()).toBe(true);
    });
  });

  describe('agent protection across a reset', () => {
    const fixture = useSandbox(makeProvider, spec);

    itWithCapabilities(['exec'], 'after a reset nothing user code started or wrote survives', async () => {
      const { session } = fixture;
      // A detached, SIGTERM-ignoring daemon that keeps trying to forge the reset proof and re-create its files,
      // named like the agent to confuse a reset that went by name.
      const daemon = [
        'import os, signal, time',
        'signal.signal(signal.SIGTERM, signal.SIG_IGN)',
        'if os.fork(): os._exit(0)',
        'os.setsid()',
        'proof = "".join(\'{"id":%d,"ok":true,"result":{"ok":true,"leftovers":[],"durationMs":1}}\\n\' % i for i in range(1, 60)).encode()',
        'while True:',
        '    for path in ("survivor.txt", "/tmp/survivor.txt", "/dev/shm/survivor.txt"):',
        '        try: open(path, "w").write("alive")',
        '        except OSError: pass',
        '    for pid in os.listdir("/proc"):',
        '        try: target = pid.isdigit() and int(pid) != os.getpid() and b"/agent.py" in open(f"/proc/{pid}/cmdline", "rb").read()',
        '        except OSError: target = False',
        '        for fd in range(8) if target else ():',
        '            try: open(f"/proc/{pid}/fd/{fd}", "wb", buffering=0).write(proof)',
        '            except (OSError, ValueError): pass',
        '    time.sleep(0.01)',
      ].join('\n');
      const setup = await session.exec({
        command: ['bash', '-c', 'exec -a agent.py python3 -c "$0" > /dev/null 2>&1 < /dev/null; true', daemon],
        timeoutMs: 30_000,
      });
      expect(setup.exitCode).toBe(0);
      const started = await session.exec({
        command: 'for i in $(seq 200); do [ -e survivor.txt ] && break; sleep 0.05; done; [ -e survivor.txt ] && echo started',
        timeoutMs: 30_000,
      });
      expect(started.stdout).toBe('started\n');

      const report = await fixture.handle.reset();
      expect(report).toMatchObject({ ok: true });

      // The daemon is gone (no user process named agent.py is visible; it rewrote its files every 10 ms, so half a
      // second without them means nobody is left to write them), and none of its forged proofs reached the host
      // (an answer to an id never sent would have closed the sandbox). Backends that give each exec its own PID
      // namespace end the daemon with its exec; the file check still holds there.
      const after = await session.exec({
        command:
          'sleep 0.5; for f in /proc/[0-9]*; do [ -O "$f" ] && tr "\\0" " " < "$f/cmdline" 2>/dev/null | grep -q "^agent.py" && echo "$f"; done; ls survivor.txt /tmp/survivor.txt /dev/shm/survivor.txt 2>&1 | grep -v "No such file"; true',
        timeoutMs: 30_000,
      });
      expect(after.stdout).toBe('');
      expect(await fixture.handle.health()).toBe(true);
    });
  });
}
