import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Availability } from '../provider.js';
import { parseSandboxSpec } from '../spec.js';
import { bwrapArguments, sandboxPython } from './sandbox-command.js';
import { bwrapVersion, findSetpriv, hostIdentityPrefix, runningAsRoot, userSpawnerPrefix } from './sandbox-identity.js';

const BWRAP_CANDIDATES = ['/usr/bin/bwrap', '/usr/local/bin/bwrap', '/bin/bwrap'];
const PROBE_TIMEOUT_MS = 15_000;
const USERNS_HINT =
  'unprivileged user namespaces may be disabled: check sysctl user.max_user_namespaces, kernel.unprivileged_userns_clone and kernel.apparmor_restrict_unprivileged_userns';

/** The bwrap binary to use: an explicit path, null for "do not sandbox", or the first standard location. */
export function findBwrap(configured?: string | null): string | null {
  if (configured !== undefined) return configured !== null && existsSync(configured) ? configured : null;
  return BWRAP_CANDIDATES.find((path) => existsSync(path)) ?? null;
}

/**
 * What user code in the trial sandbox checks: a usable python, the agent folder mounted, the expected non-root
 * uid, and no way to create a user namespace. Exit codes name the failure.
 */
function trialCheck(uid: number): string {
  return [
    'import ctypes, os, sys',
    'if sys.version_info < (3, 9) or not os.path.isfile("/opt/corral/agent/agent.py"): sys.exit(3)',
    `if os.geteuid() != ${uid} or os.getuid() == 0: sys.exit(4)`,
    'if ctypes.CDLL(None, use_errno=True).unshare(0x10000000) == 0: sys.exit(5)',
  ].join('\n');
}

const TRIAL_FAILURES: Record<number, string> = {
  3: 'python3 is older than 3.9 or the agent folder did not mount (is it readable by the sandbox uid?)',
  4: 'user code did not run as the sandbox uid',
  5: 'user code could still create a user namespace (bwrap --disable-userns had no effect)',
};

function unavailable(reason: string, detail?: Record<string, unknown>): Promise<Availability> {
  return Promise.resolve({ ok: false, reason, ...(detail ? { detail } : {}) });
}

/**
 * Checks that bubblewrap can build the same sandbox create() will build, as the same unprivileged uid, including
 * the inner launcher user code runs behind, by running python3 inside it once. The reason on failure says what
 * to install or enable: the backend refuses to start rather than run user code with privileges.
 */
export function probeBwrap(agentDirectory: string, uid: number, configured?: string | null): Promise<Availability> {
  if (process.platform !== 'linux') return unavailable(`bubblewrap needs Linux (this is ${process.platform})`);
  if (configured === null) return unavailable('bubblewrap is switched off for this provider (bwrapPath: null)');
  if (!Number.isInteger(uid) || uid <= 0) return unavailable(`the sandbox uid must be a positive integer, not ${uid}: user code never runs as root`);
  const bwrap = findBwrap(configured);
  if (!bwrap) return unavailable(`bwrap not found${configured ? ` at ${configured}` : ''}: install bubblewrap (apt-get install bubblewrap)`);
  const python = sandboxPython();
  if (!python) return unavailable('no python3 under /usr: install python3 (3.9 or newer)');
  const version = bwrapVersion(bwrap);
  if (version !== null && version[0] === 0 && version[1] < 8) {
    return unavailable(`bwrap ${version.join('.')} is too old: 0.8.0 or newer is needed for --disable-userns`, { bwrap });
  }
  const setpriv = findSetpriv();
  if (runningAsRoot() && setpriv === null)
    return unavailable('corral runs as root and setpriv (util-linux) is missing: it is needed to start bwrap as the sandbox uid');
  const detail = { bwrap, python, uid, hostUid: runningAsRoot() ? uid : process.geteuid?.() };
  const userCode = [...userSpawnerPrefix(bwrap, uid), python, '-c', trialCheck(uid)];
  const [program = bwrap, ...args] = [
    ...hostIdentityPrefix(uid, setpriv),
    bwrap,
    ...bwrapArguments(parseSandboxSpec({ workspaceMiB: 1 }), agentDirectory, uid, userCode),
  ];
  return new Promise((resolve) => {
    execFile(program, args, { timeout: PROBE_TIMEOUT_MS, env: { PATH: '/usr/bin:/bin' }, cwd: '/' }, (error, _stdout, stderr) => {
      if (!error) return resolve({ ok: true, detail });
      const code = (error as { code?: unknown }).code;
      const why = (typeof code === 'number' ? TRIAL_FAILURES[code] : undefined) ?? (stderr.trim() || error.message);
      resolve({ ok: false, reason: `bwrap failed a trial run as uid ${uid}: ${why} (${USERNS_HINT})`, detail });
    });
  });
}
