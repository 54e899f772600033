/**
 * The command lines that start an agent: inside bubblewrap (a user namespace mapping one unprivileged uid, no
 * network, a read-only root and /dev, private tmpfs workspace, /tmp and /dev/shm, all capabilities dropped), or
 * directly for an explicitly unsandboxed run.
 */
import { existsSync, lstatSync, readdirSync, readlinkSync } from 'node:fs';
import type { SandboxSpec } from '../spec.js';

export const SANDBOX_WORKSPACE = '/workspace';
export const SANDBOX_AGENT_DIRECTORY = '/opt/corral/agent';
const SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Only what programs need from /etc: no shadow files, no host secrets, no service configuration. */
const ETC_ALLOW_LIST = [
  'alternatives',
  'bash.bashrc',
  'ca-certificates',
  'ca-certificates.conf',
  'debian_version',
  'gai.conf',
  'group',
  'host.conf',
  'hosts',
  'inputrc',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'locale.alias',
  'localtime',
  'magic',
  'magic.mime',
  'mime.types',
  'nsswitch.conf',
  'os-release',
  'passwd',
  'profile',
  'protocols',
  'resolv.conf',
  'services',
  'ssl',
  'terminfo',
  'timezone',
];

/** The interpreter that will run the agent; it must live under /usr, the only system tree bound into the sandbox. */
export function sandboxPython(): string | null {
  return ['/usr/bin/python3', '/usr/local/bin/python3'].find((path) => existsSync(path)) ?? null;
}

function systemBinds(): string[] {
  const args = ['--ro-bind', '/usr', '/usr'];
  for (const top of ['/bin', '/sbin', '/lib', '/lib64', '/lib32', '/libx32']) {
    let stats;
    try {
      stats = lstatSync(top);
    } catch {
      continue;
    }
    // Merged-/usr hosts have these as symlinks into /usr; recreate the link rather than binding twice.
    if (stats.isSymbolicLink()) args.push('--symlink', readlinkSync(top), top);
    else if (stats.isDirectory()) args.push('--ro-bind', top, top);
  }
  const pythonEtc = readdirSync('/etc').filter((name) => name.startsWith('python3'));
  for (const name of [...ETC_ALLOW_LIST, ...pythonEtc]) args.push('--ro-bind-try', `/etc/${name}`, `/etc/${name}`);
  return args;
}

export function sandboxEnvironment(spec: SandboxSpec, home: string, tmp: string): Record<string, string> {
  return { PATH: SANDBOX_PATH, HOME: home, LANG: 'C.UTF-8', TMPDIR: tmp, ...spec.env };
}

/**
 * Arguments for `bwrap` that run `command` (already in sandbox paths) in a fresh sandbox as `uid`. The agent may
 * still create a user namespace (the one its user-process spawner runs in, see userSpawnerPrefix); user code may not.
 */
export function bwrapArguments(spec: SandboxSpec, agentDirectory: string, uid: number, command: readonly string[]): string[] {
  const tmpfsBytes = String(spec.workspaceMiB * 1024 * 1024);
  const args = [
    '--unshare-all',
    '--unshare-user', // --unshare-all only tries; without a user namespace there is no unprivileged uid
    '--uid',
    String(uid),
    '--gid',
    String(uid),
    ...(spec.network === 'egress' ? ['--share-net'] : []),
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--hostname',
    'sandbox',
    ...systemBinds(),
    '--ro-bind',
    agentDirectory,
    SANDBOX_AGENT_DIRECTORY,
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--remount-ro',
    '/dev', // bwrap's /dev is a tmpfs owned by the sandbox uid; only /dev/shm below stays writable
    '--size',
    tmpfsBytes,
    '--tmpfs',
    '/dev/shm',
    '--size',
    tmpfsBytes,
    '--tmpfs',
    '/tmp',
    '--size',
    tmpfsBytes,
    '--tmpfs',
    SANDBOX_WORKSPACE,
    '--remount-ro',
    '/', // likewise the root tmpfs (/, /etc, /opt): a reset could not wipe what is planted there
    '--chdir',
    SANDBOX_WORKSPACE,
    '--clearenv',
  ];
  for (const [name, value] of Object.entries(sandboxEnvironment(spec, SANDBOX_WORKSPACE, '/tmp'))) args.push('--setenv', name, value);
  return [...args, '--', ...command];
}

/**
 * The agent's own command line. -E -s keep the user's PYTHON* variables and user site from changing the agent
 * (its REPL worker still honours them); -B because its folder is read-only.
 */
export function agentCommand(
  python: string,
  agentDirectory: string,
  options: { workspace: string; deadlineMs: number; scratchDirectory?: string; userSpawnerPrefix?: readonly string[] },
): string[] {
  const args = [python, '-u', '-B', '-E', '-s', `${agentDirectory}/agent.py`, '--workspace', options.workspace, '--deadline-ms', String(options.deadlineMs)];
  if (options.scratchDirectory !== undefined) args.push('--process-scope', 'descendants', '--scratch-dir', options.scratchDirectory);
  if (options.userSpawnerPrefix !== undefined) args.push('--user-spawner-prefix', JSON.stringify(options.userSpawnerPrefix));
  return args;
}

/**
 * Wraps a command in /bin/sh that first joins the sandbox cgroups (so every descendant is limited from its first
 * instruction) and sets rlimits, then execs it. Keeping the pid means the record's pid is bwrap's.
 */
export function launcherArguments(
  procsFiles: readonly string[],
  limits: { addressSpaceKiB?: number; fileSizeKiB?: number },
  command: readonly string[],
): string[] {
  const ulimits = ['ulimit -c 0'];
  if (limits.addressSpaceKiB !== undefined) ulimits.push(`ulimit -v ${limits.addressSpaceKiB}`);
  if (limits.fileSizeKiB !== undefined) ulimits.push(`ulimit -f ${limits.fileSizeKiB * 2}`); // dash counts 512-byte blocks
  const script = `while [ "$1" != -- ]; do echo $$ > "$1" || exit 97; shift; done; shift; ${ulimits.join(' && ')} && exec "$@"`;
  return ['-c', script, 'corral-launcher', ...procsFiles, '--', ...command];
}
