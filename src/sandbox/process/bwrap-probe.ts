import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Availability } from '../provider.js';
import { parseSandboxSpec } from '../spec.js';
import { bwrapArguments, sandboxPython } from './sandbox-command.js';

const BWRAP_CANDIDATES = ['/usr/bin/bwrap', '/usr/local/bin/bwrap', '/bin/bwrap'];
const PROBE_TIMEOUT_MS = 15_000;

/** The bwrap binary to use: an explicit path, null for "do not sandbox", or the first standard location. */
export function findBwrap(configured?: string | null): string | null {
  if (configured !== undefined) return configured !== null && existsSync(configured) ? configured : null;
  return BWRAP_CANDIDATES.find((path) => existsSync(path)) ?? null;
}

/**
 * Checks that bubblewrap can build the same sandbox create() will build, by running python3 inside it once.
 * The reason on failure says what to install or enable.
 */
export function probeBwrap(agentDirectory: string, configured?: string | null): Promise<Availability> {
  if (process.platform !== 'linux') return Promise.resolve({ ok: false, reason: `bubblewrap needs Linux (this is ${process.platform})` });
  if (configured === null) return Promise.resolve({ ok: false, reason: 'bubblewrap is switched off for this provider (bwrapPath: null)' });
  const bwrap = findBwrap(configured);
  if (!bwrap) return Promise.resolve({ ok: false, reason: `bwrap not found${configured ? ` at ${configured}` : ''}: install bubblewrap (apt-get install bubblewrap)` });
  const python = sandboxPython();
  if (!python) return Promise.resolve({ ok: false, reason: 'no python3 under /usr: install python3 (3.9 or newer)' });
  const check = 'import sys, os; sys.exit(0 if sys.version_info >= (3, 9) and os.path.isfile("/opt/corral/agent/agent.py") else 3)';
  const args = bwrapArguments(parseSandboxSpec({ workspaceMiB: 1 }), agentDirectory, [python, '-c', check]);
  return new Promise((resolve) => {
    execFile(bwrap, args, { timeout: PROBE_TIMEOUT_MS, env: { PATH: '/usr/bin:/bin' } }, (error, _stdout, stderr) => {
      if (!error) return resolve({ ok: true, detail: { bwrap, python } });
      const code = (error as { code?: unknown }).code;
      const why = code === 3 ? `${python} is older than 3.9 or the agent folder did not mount` : stderr.trim() || error.message;
      resolve({
        ok: false,
        reason: `bwrap failed a trial run: ${why} (user namespaces may be disabled: check sysctl kernel.unprivileged_userns_clone / user.max_user_namespaces)`,
        detail: { bwrap, python },
      });
    });
  });
}
