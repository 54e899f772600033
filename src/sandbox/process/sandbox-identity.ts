/**
 * Who code in a process sandbox runs as. Never root: bwrap maps one unprivileged uid (the same number inside and
 * out) into a user namespace, and when corral itself is root, bwrap is started as that uid on the host too, so
 * the namespace owns no host privilege (a namespace created by root maps its uid to host root: /proc/sys
 * writable, core_pattern, ...). bwrap maps a single uid, so the agent and user code share it; they are kept
 * apart by PID namespace instead: the agent starts one inner bwrap (userSpawnerPrefix) with its own PID
 * namespace and /proc, whose PID 1 is a trusted spawner (sandboxes/agent/user_spawner.py) that forks every
 * user process, so user code cannot see, signal, ptrace or open the descriptors of the agent.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Default host and sandbox uid (and gid): no account on common distributions, outside the usual subuid ranges. */
export { DEFAULT_SANDBOX_UID } from '../../core/sandbox-defaults.js';

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
 * The agent's --user-spawner-prefix: an inner bwrap over the same mounts (so workspace, /tmp and /dev/shm are the
 * very tmpfs the agent sees; the read-only flags carry over with the bind), a fresh PID namespace and /proc, no
 * capabilities and no further user namespaces. --as-pid-1: the spawner itself is the namespace's init, so signals
 * from user code do not reach it, orphans re-parent to it, and when it dies the kernel kills the whole namespace.
 * The agent starts it with a clean environment; user env is applied only in the spawner's children.
 */
export function userSpawnerPrefix(bwrap: string, uid: number): string[] {
  const id = String(uid);
  return [
    bwrap,
    '--bind',
    '/',
    '/',
    '--dev-bind',
    '/dev',
    '/dev',
    '--unshare-user',
    '--uid',
    id,
    '--gid',
    id,
    '--disable-userns',
    '--unshare-pid',
    '--as-pid-1',
    '--proc',
    '/proc',
    '--die-with-parent',
    '--cap-drop',
    'ALL',
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
