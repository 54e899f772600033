import type Docker from 'dockerode';
import type { SandboxSpec } from '../spec.js';

/** The uid:gid user code runs as; the agent itself runs as root with three capabilities (see below). */
export const SANDBOX_USER_ID = 1000;
export const SANDBOX_USER = `${SANDBOX_USER_ID}:${SANDBOX_USER_ID}`;
const AGENT_USER = '0:0';
/** setuid/setgid to start user code as SANDBOX_USER and set the agent's fsuid; kill to stop a uid it does not share. */
const AGENT_CAPABILITIES = ['SETUID', 'SETGID', 'KILL'];
export const SANDBOX_WORKSPACE = '/workspace';
export const AGENT_ENTRYPOINT = '/opt/corral/agent/agent.py';
/** Docker's own default /dev/shm size; shared memory beyond it is rarely wanted in a sandbox. */
const SHM_MAX_MIB = 64;

/** The in-sandbox agent speaks JSON lines over the container's attached stdin/stdout: no TTY, stdin closed when the host detaches. */
export const AGENT_STDIO = Object.freeze({ AttachStdin: true, AttachStdout: true, AttachStderr: true, OpenStdin: true, StdinOnce: true, Tty: false });

/** Docker names allow [a-zA-Z0-9][a-zA-Z0-9_.-]*; the name only helps humans reading `docker ps`. */
export function containerName(sandboxId: string): string {
  return `corral-${sandboxId.replace(/[^a-zA-Z0-9_.-]/g, '-')}`;
}

export function agentCommand(expiresAtMs: number): string[] {
  return ['python3', '-u', AGENT_ENTRYPOINT, '--workspace', SANDBOX_WORKSPACE, '--deadline-ms', String(expiresAtMs)];
}

/**
 * The hardened container for one sandbox. Why each choice:
 * - Init: docker-init (tini) is PID 1 and reaps zombies that user commands leave, so the agent needn't.
 * - User 0:0 with CapDrop ALL + CapAdd SETUID/SETGID/KILL: the agent and PID 1 are a different uid from user code
 *   (SANDBOX_USER, started by the agent with --run-as), so user code can neither open /proc/<agent>/fd (the
 *   protocol pipes: forged replies, host floods) nor ptrace or signal the agent. The agent does its file work with
 *   the user's fsuid, so it needs no DAC/CHOWN capability and every file stays the user's.
 * - OpenStdin with StdinOnce: the agent's stdin is our one attach stream, and it closes when that client goes
 *   away, so the agent's dead-man switch fires the moment its owner dies (SIGKILL included) and AutoRemove
 *   deletes the container; the deadline and the reaper remain as backstops. We never re-attach.
 * - LogConfig none: every protocol line would otherwise be copied to a json-file log on disk.
 * - ReadonlyRootfs + tmpfs: nothing a command writes outlives the container or touches the image layer.
 * - AutoRemove: a container that dies on its own (OOM, kill, deadline) disappears without a reaper pass.
 */
export function containerCreateOptions(
  spec: SandboxSpec,
  values: { image: string; name: string; labels: Record<string, string>; expiresAtMs: number },
): Docker.ContainerCreateOptions {
  const memoryBytes = spec.memoryMiB * 1024 * 1024;
  const tmpfsOptions = `rw,exec,nosuid,nodev,size=${spec.workspaceMiB}m`;
  return {
    name: values.name,
    Image: values.image,
    Cmd: [...agentCommand(values.expiresAtMs), '--run-as', SANDBOX_USER],
    User: AGENT_USER,
    WorkingDir: SANDBOX_WORKSPACE,
    Env: [
      'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      'LANG=C.UTF-8',
      `HOME=${SANDBOX_WORKSPACE}`,
      ...Object.entries(spec.env).map(([key, value]) => `${key}=${value}`),
    ],
    Labels: values.labels,
    ...AGENT_STDIO,
    HostConfig: {
      Init: true,
      AutoRemove: true,
      Privileged: false,
      CapDrop: ['ALL'],
      CapAdd: AGENT_CAPABILITIES,
      SecurityOpt: ['no-new-privileges'],
      PidsLimit: spec.pidsLimit,
      Memory: memoryBytes,
      MemorySwap: memoryBytes,
      NanoCpus: Math.round(spec.cpus * 1e9),
      NetworkMode: spec.network === 'egress' ? 'bridge' : 'none',
      ReadonlyRootfs: true,
      // Every writable place is a tmpfs owned by the sandbox user: the agent's reset wipes them and restores
      // their modes, which needs ownership since no capability (CAP_FOWNER) is left. IpcMode none drops
      // Docker's root-owned /dev/shm so ours (bounded, user-owned) takes its place.
      IpcMode: 'none',
      Tmpfs: {
        [SANDBOX_WORKSPACE]: `${tmpfsOptions},uid=1000,gid=1000,mode=0755`,
        '/tmp': `${tmpfsOptions},uid=1000,gid=1000,mode=1777`,
        '/dev/shm': `rw,nosuid,nodev,noexec,size=${Math.min(spec.workspaceMiB, SHM_MAX_MIB)}m,uid=1000,gid=1000,mode=1777`,
      },
      // Read-only bind mounts (e.g. CLI agents from corral's cache); Mounts, unlike Binds, refuses a missing source.
      ...(spec.readOnlyMounts.length > 0
        ? { Mounts: spec.readOnlyMounts.map((mount) => ({ Type: 'bind' as const, Source: mount.source, Target: mount.target, ReadOnly: true })) }
        : {}),
      LogConfig: { Type: 'none', Config: {} },
      RestartPolicy: { Name: 'no' },
    },
  };
}
