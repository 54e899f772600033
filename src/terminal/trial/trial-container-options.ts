import type Docker from 'dockerode';
import { AGENT_ENTRYPOINT, AGENT_STDIO } from '../../sandbox/docker/container-options.js';
import { parseSandboxSpec } from '../../sandbox/spec.js';
import type { TerminalTask } from '../terminal-task.js';

/**
 * What a task's commands may do as root in the trial container: change owners and modes of files they do not own
 * (the shared tasks' solutions chmod root-owned files and enter a mode-000 folder), switch users (apt drops to
 * _apt, su, a task's own users) and signal their processes. Everything else Docker grants by default (MKNOD,
 * NET_RAW, SYS_CHROOT, SETFCAP, SETPCAP, AUDIT_WRITE, NET_BIND_SERVICE) is dropped; never SYS_ADMIN or SYS_PTRACE,
 * so no process of the task can ptrace the in-sandbox agent or open its protocol descriptors.
 */
export const TRIAL_CAPABILITIES = ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'SETUID', 'SETGID', 'KILL'];
/** Processes per trial container when the task says nothing: a test suite or a build forks a lot. */
export const TRIAL_PIDS_LIMIT = 1024;
export const AGENT_LOGS_DIRECTORY = '/logs/agent';
export const VERIFIER_LOGS_DIRECTORY = '/logs/verifier';
export const TESTS_DIRECTORY = '/tests';

/** A host folder bind-mounted read-only into the agent container (a CLI agent's install tree, its socket folder). */
export interface TrialReadOnlyMount {
  source: string;
  /** Absolute path in the container, under /opt/ (never over /opt/corral/agent). */
  target: string;
}

export interface TrialNetworkPolicy {
  /** The operator's --no-internet: public tasks get no network either. */
  forbidEgress: boolean;
}

export function trialNetworkMode(task: TerminalTask, policy: TrialNetworkPolicy): 'none' | 'bridge' {
  return task.environment.networkMode === 'public' && !policy.forbidEgress ? 'bridge' : 'none';
}

function taskEnv(task: TerminalTask, extra: Readonly<Record<string, string>> = {}): string[] {
  return Object.entries({ ...task.environment.env, ...extra }).map(([key, value]) => `${key}=${value}`);
}

/** Limits and hardening both phases share: the Docker backend's choices with the task's own limits. */
function hardenedHostConfig(task: TerminalTask, policy: TrialNetworkPolicy): Docker.HostConfig {
  const memoryBytes = task.environment.memoryMb * 1024 * 1024;
  return {
    Init: true,
    Privileged: false,
    CapDrop: ['ALL'],
    CapAdd: TRIAL_CAPABILITIES,
    SecurityOpt: ['no-new-privileges'],
    PidsLimit: TRIAL_PIDS_LIMIT,
    Memory: memoryBytes,
    MemorySwap: memoryBytes,
    NanoCpus: Math.round(task.environment.cpus * 1e9),
    NetworkMode: trialNetworkMode(task, policy),
    LogConfig: { Type: 'none', Config: {} },
    RestartPolicy: { Name: 'no' },
  };
}

/**
 * The agent-phase container: the in-sandbox agent (root, as Harbor runs agents) serving exec and files in the
 * task's working directory. No AutoRemove: the stopped container is committed for the verifier. The writable root
 * stays (tasks install packages and edit system files); what the agent leaves there is what the verifier sees.
 */
export function agentContainerOptions(
  task: TerminalTask,
  values: {
    image: string;
    name: string;
    labels: Record<string, string>;
    expiresAtMs: number;
    policy: TrialNetworkPolicy;
    readOnlyMounts?: readonly TrialReadOnlyMount[];
  },
): Docker.ContainerCreateOptions {
  const healthcheck = task.environment.healthcheck;
  // The sandbox spec's rules for read-only mounts (normalised paths, under /opt/, never over the agent, distinct).
  const mounts = parseSandboxSpec({ readOnlyMounts: [...(values.readOnlyMounts ?? [])] }).readOnlyMounts;
  return {
    name: values.name,
    Image: values.image,
    // An image's own ENTRYPOINT must not wrap the agent.
    Entrypoint: ['python3'],
    Cmd: ['-u', '-E', '-s', AGENT_ENTRYPOINT, '--workspace', task.environment.workdir, '--deadline-ms', String(values.expiresAtMs)],
    User: task.agent.user ?? '0:0',
    WorkingDir: task.environment.workdir,
    Env: taskEnv(task),
    Labels: values.labels,
    ...AGENT_STDIO,
    ...(healthcheck
      ? {
          Healthcheck: {
            Test: ['CMD-SHELL', healthcheck.command],
            Interval: healthcheck.intervalSec * 1e9,
            Timeout: healthcheck.timeoutSec * 1e9,
            Retries: healthcheck.retries,
            StartPeriod: healthcheck.startPeriodSec * 1e9,
          },
        }
      : {}),
    HostConfig: {
      ...hardenedHostConfig(task, values.policy),
      ...(mounts.length > 0 ? { Mounts: mounts.map((mount) => ({ Type: 'bind' as const, Source: mount.source, Target: mount.target, ReadOnly: true })) } : {}),
    },
  };
}

/**
 * The verifier container, from the committed file system of the stopped agent container. /tests and /logs/verifier
 * are fresh anonymous volumes with no copy-up: whatever the agent wrote at those paths is hidden, the tests are
 * copied in before start, and the reward is read from the volume by the daemon after the container stopped.
 * test.sh runs as [verifier].user (runuser, from util-linux, drops root) with [verifier].env.
 */
export function verifierContainerOptions(
  task: TerminalTask,
  values: { image: string; name: string; labels: Record<string, string>; policy: TrialNetworkPolicy },
): Docker.ContainerCreateOptions {
  const script = `${TESTS_DIRECTORY}/${task.testScript.split('/').at(-1)!}`;
  const user = task.verifier.user;
  const test = user ? `runuser -u ${shellQuote(user)} -- bash ${script}` : `bash ${script}`;
  const output = `${VERIFIER_LOGS_DIRECTORY}/test-stdout.txt`;
  // A TB v1 run-tests.sh reports by exit status (0 passes); a Harbor test.sh writes its reward file itself.
  const run =
    task.format === 'terminal-bench-v1'
      ? `if ${test} > ${output} 2>&1; then echo 1; else echo 0; fi > ${VERIFIER_LOGS_DIRECTORY}/reward.txt`
      : `${test} > ${output} 2>&1`;
  const prepare = user ? `chown ${shellQuote(user)} ${VERIFIER_LOGS_DIRECTORY}; ` : '';
  return {
    name: values.name,
    Image: values.image,
    Entrypoint: ['bash', '-c'],
    Cmd: [`${prepare}cd ${shellQuote(task.environment.workdir)} 2>/dev/null || cd /; ${run}`],
    User: '0:0',
    WorkingDir: '/',
    Env: taskEnv(task, task.verifier.env),
    Labels: values.labels,
    Tty: false,
    HostConfig: {
      ...hardenedHostConfig(task, values.policy),
      // Anonymous volumes without copy-up (NoCopy): empty, whatever the committed image holds at these paths.
      Mounts: [
        { Type: 'volume', Target: TESTS_DIRECTORY, VolumeOptions: { NoCopy: true } },
        { Type: 'volume', Target: VERIFIER_LOGS_DIRECTORY, VolumeOptions: { NoCopy: true } },
      ] as Docker.MountConfig,
    },
  };
}

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * A helper container for the final file system (capture from the committed image, restore onto the task image): root
 * with the trial's capabilities and limits, never a network, `python3 -I -S -c script args`, its output read over an
 * attach stream (the log driver is none).
 */
export function fileSystemHelperOptions(
  task: TerminalTask,
  values: { image: string; name: string; labels: Record<string, string>; script: string; args: readonly string[] },
): Docker.ContainerCreateOptions {
  return {
    name: values.name,
    Image: values.image,
    Entrypoint: ['python3'],
    Cmd: ['-I', '-S', '-c', values.script, ...values.args],
    User: '0:0',
    WorkingDir: '/',
    Env: [],
    Labels: values.labels,
    ...AGENT_STDIO,
    HostConfig: hardenedHostConfig(task, { forbidEgress: true }),
  };
}
