/**
 * Who code in a process sandbox runs as. Never root: bwrap maps one unprivileged uid (the same number inside and
 * out) into a user namespace, and when corral itself is root, bwrap is started as that uid on the host too, so
 * the namespace owns no host privilege (a namespace created by root maps its uid to host root: /proc/sys
 * writable, core_pattern, ...). bwrap maps a single uid, so the agent and user code share it; they are kept
 * apart by PID namespace instead: every user process starts behind userCommandPrefix, an inner bwrap with its
 * own PID namespace and /proc, so it cannot see, signal, ptrace or open the descriptors of the agent.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Default host and sandbox uid (and gid): no account on common distributions, outside the usual subuid ranges. */
export const DEFAULT_SANDBOX_UID = 58_000;

const SETPRIV_CANDIDATES = ['/usr/bin/setpriv', '/bin/setpriv'];

export function runningAsRoot(): boolean {
  return process.geteuid?.() === 0;
}

export function findSetpriv(): string | null {
  return SETPRIV_CANDIDATES.find((path) => existsSync(path)) ?? null;
}

/**
 * What the launcher execs before bwrap, after it joined the cgroups: a switch to the sandbox uid when corral is
 * root (setpriv drops every capability with the uid), nothing otherwise (bwrap then maps corral's own uid).
 */
export function hostIdentityPrefix(uid: number, setpriv: string | null): string[] {
  if (!runningAsRoot()) return [];
  if (setpriv === null) throw new Error('setpriv not found: install util-linux');
  return [setpriv, '--reuid', String(uid), '--regid', String(uid), '--clear-groups'];
}

/**
 * The agent's --user-command-prefix: an inner bwrap over the same mounts (so workspace, /tmp and /dev/shm are the
 * very tmpfs the agent sees; the read-only flags carry over with the bind), a fresh PID namespace and /proc, no
 * capabilities and no further user namespaces. Environment and cwd pass through bwrap unchanged. No
 * --new-session: the command stays in the agent's process group, so a group kill on timeout reaches it, and
 * when bwrap's init dies the kernel kills the rest of the namespace.
 */
export function userCommandPrefix(bwrap: string, uid: number): string[] {
  const id = String(uid);
  return [
    bwrap,
    '--bind', '/', '/',
    '--dev-bind', '/dev', '/dev',
    '--unshare-user', '--uid', id, '--gid', id,
    '--disable-userns',
    '--unshare-pid',
    '--proc', '/proc',
    '--die-with-parent',
    '--cap-drop', 'ALL',
    '--',
  ];
}

/** bwrap's version as [major, minor, patch], or null when it does not say. --disable-userns needs 0.8.0. */
export function bwrapVersion(bwrap: string): [number, number, number] | null {
  try {
    const match = execFileSync(bwrap, ['--version'], { encoding: 'utf8', timeout: 5_000 }).match(/(\d+)\.(\d+)\.(\d+)/);
    return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : null;
  } catch {
    return null;
  }
}
