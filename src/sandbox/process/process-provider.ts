/**
 * The process backend: the in-sandbox agent as a local child process, inside bubblewrap namespaces with a cgroup
 * for pids and memory, as an unprivileged uid (sandbox-identity.ts), with user code in a PID namespace of its own.
 * Needs no daemon, so it is the default where Docker is absent and the fast one for tests.
 * Where bubblewrap is missing or broken it refuses to run, unless the spec sets allowUnsandboxed: then the agent
 * runs directly, in a private host workspace, confined only by the cgroup and rlimits (bwrap is used whenever it
 * works, whatever the flag says).
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { throwIfAborted } from '../../core/abort.js';
import { CorralError } from '../../core/errors.js';
import { AgentConnection } from '../agent-client/agent-connection.js';
import { FORKABLE_AGENT_CAPABILITIES } from '../agent-client/agent-session.js';
import { namespaceCopyUnavailable } from '../file-system-copy/namespace-tar.js';
import { agentDirectoryPath } from '../agent-client/agent-directory.js';
import type { Availability, CreateOptions, SandboxHandle, SandboxProvider } from '../provider.js';
import type { SandboxSpec } from '../spec.js';
import { stageAgentDirectory } from './agent-staging.js';
import { findBwrap, probeBwrap } from './bwrap-probe.js';
import { isSameProcess, killProcessGroup, processStartTicks } from './host-processes.js';
import { ProcessSandbox } from './process-sandbox.js';
import { createSandboxCgroup, destroyCgroupDirectories } from './sandbox-cgroup.js';
import {
  agentCommand,
  bwrapArguments,
  launcherArguments,
  SANDBOX_AGENT_DIRECTORY,
  SANDBOX_WORKSPACE,
  sandboxEnvironment,
  sandboxPython,
} from './sandbox-command.js';
import { DEFAULT_SANDBOX_UID, findSetpriv, hostIdentityPrefix, runningAsRoot, userSpawnerPrefix } from './sandbox-identity.js';
import { SandboxRecords, type SandboxRecord } from './sandbox-records.js';

export interface ProcessProviderOptions {
  /** Where sandbox records live (default: <tmpdir>/corral-process). */
  recordsDirectory?: string;
  /** How long create() waits for the agent's ready line, in ms (default 20,000). */
  readyTimeoutMs?: number;
  /** bubblewrap binary (default: found in /usr/bin etc.); null switches sandboxing off, as if bwrap were absent. */
  bwrapPath?: string | null;
  /**
   * The uid (and gid) user code and the agent run as, inside the sandbox and, when corral is root, on the host
   * (default DEFAULT_SANDBOX_UID, 58000). Never 0. Pick one no host account uses: processes of that account
   * could signal sandboxed ones.
   */
  sandboxUid?: number;
}

interface LaunchPlan {
  command: string[];
  env: Record<string, string>;
  workspace: string;
  hostDirectories: string[];
}

export class ProcessProvider implements SandboxProvider {
  readonly name = 'process' as const;
  private readonly records: SandboxRecords;
  private readonly readyTimeoutMs: number;
  private readonly bwrapPath: string | null | undefined;
  private readonly sandboxUid: number;
  /** The agent folder bwrap mounts: a copy the sandbox uid can read when corral is root (set by available()). */
  private agentDirectory: string | undefined;
  private readonly live = new Map<string, ProcessSandbox>();
  private availability: Promise<Availability> | undefined;

  constructor(options: ProcessProviderOptions = {}) {
    this.records = new SandboxRecords(options.recordsDirectory);
    this.readyTimeoutMs = options.readyTimeoutMs ?? 20_000;
    this.bwrapPath = options.bwrapPath;
    this.sandboxUid = options.sandboxUid ?? DEFAULT_SANDBOX_UID;
  }

  /** Whether bubblewrap works here, unprivileged (checked once with a trial run). Unsandboxed runs do not need it. */
  available(): Promise<Availability> {
    this.availability ??= this.checkAvailability();
    return this.availability;
  }

  private async checkAvailability(): Promise<Availability> {
    try {
      this.agentDirectory = runningAsRoot() ? await stageAgentDirectory(agentDirectoryPath()) : agentDirectoryPath();
    } catch (error) {
      return { ok: false, reason: (error as Error).message };
    }
    return probeBwrap(this.agentDirectory, this.sandboxUid, this.bwrapPath);
  }

  async create(spec: SandboxSpec, options: CreateOptions): Promise<SandboxHandle> {
    throwIfAborted(options.abortSignal);
    if (spec.readOnlyMounts.length > 0)
      throw new CorralError('SBX_ERR_UNSUPPORTED', 'the process backend does not mount host folders (readOnlyMounts): use the docker backend');
    const availability = await this.available();
    if (!availability.ok && !spec.allowUnsandboxed) {
      throw new CorralError(
        'SBX_ERR_UNAVAILABLE',
        `process backend cannot sandbox: ${availability.reason}. Set allowUnsandboxed: true in the sandbox spec to run the agent without isolation (unsafe for untrusted code).`,
      );
    }
    const { sandboxId } = options;
    const cgroup = await createSandboxCgroup(`corral-${sandboxId}`, spec);
    const plan = availability.ok ? this.sandboxedPlan(spec, options) : await this.unsandboxedPlan(spec, options);
    const launcher = launcherArguments(
      cgroup?.procsFiles ?? [],
      { addressSpaceKiB: cgroup?.limitsMemory ? undefined : spec.memoryMiB * 1024, fileSizeKiB: availability.ok ? undefined : spec.workspaceMiB * 1024 },
      plan.command,
    );
    // Own process group (detached) so destroy can kill the launcher's whole tree; no inherited host environment.
    const child = spawn('/bin/sh', launcher, { stdio: ['pipe', 'pipe', 'pipe'], detached: true, env: plan.env, cwd: plan.hostDirectories[0] ?? '/' });
    // Fork copies files inside the bwrap namespace, which needs root to enter; unsandboxed runs have no namespace.
    const forkable = availability.ok && namespaceCopyUnavailable() === null;
    const connection = new AgentConnection({
      writable: child.stdin,
      readable: child.stdout,
      sandboxId,
      backend: 'process',
      workspace: plan.workspace,
      ...(forkable ? { capabilities: FORKABLE_AGENT_CAPABILITIES } : {}),
    });
    child.on('error', (error) => connection.close(new CorralError('SBX_ERR_UNAVAILABLE', `cannot start the agent: ${error.message}`, { cause: error })));
    const sandbox = new ProcessSandbox({
      sandboxId,
      child,
      connection,
      cgroupDirectories: cgroup?.directories ?? [],
      hostDirectories: plan.hostDirectories,
      records: this.records,
      ...(forkable ? { namespaceCopy: { uid: this.sandboxUid, maxBytes: writablePlacesMaxBytes(spec) } } : {}),
      onDestroyed: () => this.live.delete(sandboxId),
    });
    this.live.set(sandboxId, sandbox);
    try {
      await this.records.write(this.record(options, child.pid, availability.ok, plan, cgroup?.directories ?? []));
      await connection.ready({ timeoutMs: this.readyTimeoutMs, abortSignal: options.abortSignal });
    } catch (error) {
      await sandbox.destroy();
      if (CorralError.hasCode(error, 'ERR_ABORTED')) throw error;
      const log = sandbox.log.trim();
      throw new CorralError(
        'POOL_ERR_CREATE_FAILED',
        `process sandbox ${sandboxId} did not start: ${(error as Error).message}${log ? `; agent log: ${log}` : ''}`,
        {
          cause: error,
        },
      );
    }
    return sandbox;
  }

  async cleanup(options: { ownerAlive: (ownerId: string) => boolean; all?: boolean }): Promise<number> {
    let removed = 0;
    for (const { sandboxId, record } of await this.records.list()) {
      if (record === null) {
        await this.records.remove(sandboxId);
        continue;
      }
      if (!options.all && options.ownerAlive(record.ownerId) && record.expiresAtMs > Date.now()) continue;
      const mine = this.live.get(sandboxId);
      if (mine) await mine.destroy();
      else await destroyFromRecord(record, this.records);
      removed += 1;
    }
    return removed;
  }

  /** Nothing to release: sandboxes outlive the provider object until destroyed or reaped. */
  async close(): Promise<void> {}

  private sandboxedPlan(spec: SandboxSpec, options: CreateOptions): LaunchPlan {
    const bwrap = findBwrap(this.bwrapPath);
    const python = sandboxPython();
    if (!bwrap || !python || this.agentDirectory === undefined) {
      throw new CorralError('SBX_ERR_UNAVAILABLE', 'bwrap or /usr/bin/python3 disappeared after the availability check');
    }
    const uid = this.sandboxUid;
    const agent = agentCommand(python, SANDBOX_AGENT_DIRECTORY, {
      workspace: SANDBOX_WORKSPACE,
      deadlineMs: options.expiresAtMs,
      userSpawnerPrefix: userSpawnerPrefix(bwrap, uid),
    });
    return {
      // The launcher joins the cgroups as root first; only then does setpriv drop to the sandbox uid.
      command: [...hostIdentityPrefix(uid, findSetpriv()), bwrap, ...bwrapArguments(spec, this.agentDirectory, uid, agent)],
      env: { PATH: '/usr/bin:/bin' }, // bwrap is PID 1 inside; its environment is visible there via /proc/1/environ
      workspace: SANDBOX_WORKSPACE,
      hostDirectories: [],
    };
  }

  private async unsandboxedPlan(spec: SandboxSpec, options: CreateOptions): Promise<LaunchPlan> {
    const root = await mkdtemp(join(tmpdir(), `corral-${options.sandboxId}-`));
    const workspace = join(root, 'workspace');
    const scratch = join(root, 'tmp');
    await mkdir(workspace);
    await mkdir(scratch);
    const agent = agentCommand(sandboxPython() ?? 'python3', agentDirectoryPath(), { workspace, deadlineMs: options.expiresAtMs, scratchDirectory: scratch });
    return { command: agent, env: sandboxEnvironment(spec, workspace, scratch), workspace, hostDirectories: [root] };
  }

  private record(options: CreateOptions, pid: number | undefined, sandboxed: boolean, plan: LaunchPlan, cgroups: readonly string[]): SandboxRecord {
    return {
      version: 1,
      sandboxId: options.sandboxId,
      ownerId: options.ownerId,
      pid: pid ?? 0,
      pidStartTicks: pid === undefined ? null : processStartTicks(pid),
      createdAtMs: Date.now(),
      expiresAtMs: options.expiresAtMs,
      sandboxed,
      hostDirectories: plan.hostDirectories,
      cgroupDirectories: [...cgroups],
    };
  }
}

/** Removes a sandbox another (dead) corral process left behind, using only its record. */
async function destroyFromRecord(record: SandboxRecord, records: SandboxRecords): Promise<void> {
  if (record.pid > 0 && isSameProcess(record.pid, record.pidStartTicks)) killProcessGroup(record.pid);
  await destroyCgroupDirectories(record.cgroupDirectories);
  for (const directory of record.hostDirectories) await rm(directory, { recursive: true, force: true });
  await records.remove(record.sandboxId);
}

/** The most a snapshot can hold: workspace, /tmp and /dev/shm each full (each is a tmpfs of workspaceMiB), plus headers. */
function writablePlacesMaxBytes(spec: SandboxSpec): number {
  return 3 * spec.workspaceMiB * 1024 * 1024 + 16 * 1024 * 1024;
}
