import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { CorralError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { OWNER_ID } from '../../core/owner.js';
import { corralVersion } from '../../core/project-root.js';
import { AgentConnection } from '../../sandbox/agent-client/agent-connection.js';
import type { SandboxSession } from '../../sandbox/session.js';
import { type ContainerAttachment, attachContainer } from '../../sandbox/docker/container-attachment.js';
import { containerName } from '../../sandbox/docker/container-options.js';
import { errorMessage, isGoneOrGoing } from '../../sandbox/docker/docker-errors.js';
import { sandboxLabels } from '../../sandbox/docker/docker-labels.js';
import type { TerminalTask } from '../terminal-task.js';
import { isDaemonHiccup } from './daemon-hiccup.js';
import { type TrialNetworkPolicy, type TrialReadOnlyMount, agentContainerOptions } from './trial-container-options.js';

/** What an agent that runs a process inside the container (a CLI agent) needs mounted there. */
export interface TrialContainerMounts {
  /** Host folders mounted read-only (e.g. the CLI's install tree). */
  readOnlyMounts: readonly TrialReadOnlyMount[];
  /**
   * Where a fresh host folder of this container's own is mounted read-only: the agent's host side puts unix
   * sockets there (model proxy, MCP) once the trial starts; no other container sees the folder.
   */
  socketsTarget?: string;
}

/** How long a created container may wait for its in-sandbox agent's ready line. */
const READY_TIMEOUT_MS = 60_000;

/**
 * One agent-phase container: created, attached and started, its in-sandbox agent ready (the expensive part, done
 * ahead of time by the warm pool). Commands run through the agent over the attach stream, never `docker exec`.
 * Labelled like every corral container, so `corral cleanup` and the reaper remove it if its owner dies.
 */
export class TrialContainer {
  readonly containerId: string;
  readonly sandboxId: string;
  /** ms spent creating, starting and waiting for the agent. */
  readonly startMs: number;
  /** Host path of this container's own socket folder (TrialContainerMounts.socketsTarget), else null. */
  readonly socketsDirectory: string | null;
  private readonly connection: AgentConnection;

  private constructor(
    private readonly docker: Docker,
    parts: {
      containerId: string;
      sandboxId: string;
      connection: AgentConnection;
      attachment: ContainerAttachment;
      startMs: number;
      socketsDirectory: string | null;
    },
  ) {
    this.containerId = parts.containerId;
    this.socketsDirectory = parts.socketsDirectory;
    this.sandboxId = parts.sandboxId;
    this.connection = parts.connection;
    this.startMs = parts.startMs;
    const attachment = parts.attachment;
    // The container stopped (killed, the agent died): pending calls fail at once instead of at their timeouts.
    void attachment.disconnected.then(() => {
      this.connection.close(new CorralError('SBX_ERR_CLOSED', `trial container ${this.sandboxId} stopped`, { details: { containerId: this.containerId } }));
      attachment.endStdout();
    });
  }

  static async create(
    docker: Docker,
    task: TerminalTask,
    image: string,
    options: { policy: TrialNetworkPolicy; lifetimeMs: number; abortSignal?: AbortSignal; mounts?: TrialContainerMounts },
  ): Promise<TrialContainer> {
    const startedAt = performance.now();
    const sandboxId = newId('trial');
    const expiresAtMs = Date.now() + options.lifetimeMs;
    const labels = { ...sandboxLabels({ version: corralVersion(), ownerId: OWNER_ID, sandboxId, expiresAtMs, specHash: image }), 'corral.task': task.name };
    let container: Docker.Container | undefined;
    let attachment: ContainerAttachment | undefined;
    let socketsDirectory: string | null = null;
    try {
      const readOnlyMounts = [...(options.mounts?.readOnlyMounts ?? [])];
      if (options.mounts?.socketsTarget) {
        socketsDirectory = await mkdtemp(join(tmpdir(), 'corral-trial-sockets-'));
        await chmod(socketsDirectory, 0o755);
        readOnlyMounts.push({ source: socketsDirectory, target: options.mounts.socketsTarget });
      }
      container = await docker.createContainer(
        agentContainerOptions(task, { image, name: containerName(sandboxId), labels, expiresAtMs, policy: options.policy, readOnlyMounts }),
      );
      attachment = await attachContainer(container, { abortSignal: options.abortSignal });
      await container.start();
      const connection = new AgentConnection({
        writable: attachment.stdin,
        readable: attachment.stdout,
        sandboxId,
        backend: 'docker',
        workspace: task.environment.workdir,
      });
      const trial = new TrialContainer(docker, { containerId: container.id, sandboxId, connection, attachment, startMs: 0, socketsDirectory });
      await connection.ready({ timeoutMs: READY_TIMEOUT_MS, abortSignal: options.abortSignal });
      await waitHealthy(docker, container.id, task, options.abortSignal);
      return Object.assign(trial, { startMs: Math.round(performance.now() - startedAt) });
    } catch (error) {
      const stderr = attachment?.stderrLog.text().trim().slice(-1_000);
      attachment?.destroy();
      await container?.remove({ force: true, v: true }).catch(() => undefined);
      if (socketsDirectory) await rm(socketsDirectory, { recursive: true, force: true }).catch(() => undefined);
      if (CorralError.hasCode(error, 'ERR_ABORTED') || CorralError.hasCode(error, 'TERMINAL_ERR_TRIAL_FAILED')) throw error;
      if (isDaemonHiccup(error))
        throw new CorralError(
          'TERMINAL_ERR_CONTAINER_UNAVAILABLE',
          `${task.name}: the Docker daemon failed to create a trial container from ${image}: ${errorMessage(error)}`,
          {
            cause: error,
            details: { phase: 'container', image },
          },
        );
      throw new CorralError(
        'TERMINAL_ERR_TRIAL_FAILED',
        `${task.name}: the trial container from ${image} did not start its in-sandbox agent (the image needs python3 and /opt/corral/agent, as images built FROM corral/task-* have): ${errorMessage(error)}${stderr ? `; agent stderr: ${stderr}` : ''}`,
        { cause: error, details: { phase: 'container', image } },
      );
    }
  }

  get session(): SandboxSession {
    return this.connection.session;
  }

  /** True once the container stopped (or its agent connection broke). */
  get closed(): boolean {
    return this.connection.closed;
  }

  /**
   * SIGKILL to the container: its PID namespace goes with it, so no process the agent phase started survives.
   * Resolves once Docker reports it stopped; a container already stopped is fine.
   */
  async kill(): Promise<void> {
    const container = this.docker.getContainer(this.containerId);
    await container.kill({ signal: 'SIGKILL' }).catch((error: unknown) => {
      if (!isGoneOrGoing(error)) throw error;
    });
    await container.wait({ condition: 'not-running' }).catch(() => undefined);
    this.connection.close(new CorralError('SBX_ERR_CLOSED', `trial container ${this.sandboxId} was stopped for verification`));
  }

  async remove(): Promise<void> {
    this.connection.close(new CorralError('SBX_ERR_CLOSED', `trial container ${this.sandboxId} was removed`));
    await this.docker
      .getContainer(this.containerId)
      .remove({ force: true, v: true })
      .catch((error: unknown) => {
        if (!isGoneOrGoing(error)) throw error;
      });
    if (this.socketsDirectory) await rm(this.socketsDirectory, { recursive: true, force: true });
  }
}

/** With a declared healthcheck, the agent phase starts only once Docker calls the container healthy. */
async function waitHealthy(docker: Docker, containerId: string, task: TerminalTask, abortSignal?: AbortSignal): Promise<void> {
  const healthcheck = task.environment.healthcheck;
  if (!healthcheck) return;
  const limitMs = (healthcheck.startPeriodSec + (healthcheck.intervalSec + healthcheck.timeoutSec) * (healthcheck.retries + 1)) * 1000 + 5_000;
  const deadline = Date.now() + limitMs;
  for (;;) {
    if (abortSignal?.aborted) throw new CorralError('ERR_ABORTED', 'trial cancelled while waiting for the healthcheck');
    const state = (await docker.getContainer(containerId).inspect()).State;
    const status = state.Health?.Status;
    if (status === 'healthy') return;
    if (status === 'unhealthy' || !state.Running || Date.now() > deadline) {
      throw new CorralError('TERMINAL_ERR_TRIAL_FAILED', `${task.name}: the healthcheck \`${healthcheck.command}\` did not pass (status ${status ?? 'none'})`, {
        details: { phase: 'healthcheck' },
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
