import { existsSync } from 'node:fs';
import type Docker from 'dockerode';
import { throwIfAborted } from '../../core/abort.js';
import { CorralError } from '../../core/errors.js';
import { AgentConnection } from '../agent-client/agent-connection.js';
import { FORKABLE_AGENT_CAPABILITIES } from '../agent-client/agent-session.js';
import { namespaceCopyUnavailable } from '../file-system-copy/namespace-tar.js';
import type { Availability, CreateOptions, SandboxProvider } from '../provider.js';
import { type SandboxSpec, specHash } from '../spec.js';
import { type ContainerAttachment, attachContainer } from './container-attachment.js';
import { cleanupContainers } from './container-cleanup.js';
import { ContainerExitEvents } from './container-exit-events.js';
import { SANDBOX_WORKSPACE, containerCreateOptions, containerName } from './container-options.js';
import { type DockerConnection, openDockerConnection } from './docker-connection.js';
import { describeDaemonError, errorMessage, isNoSuchImage } from './docker-errors.js';
import { sandboxLabels } from './docker-labels.js';
import { DockerSandboxHandle } from './docker-sandbox-handle.js';
import { corralVersion } from '../../core/project-root.js';

export interface DockerProviderOptions {
  /** Daemon socket (default: unix DOCKER_HOST, else /var/run/docker.sock). */
  dockerSocketPath?: string;
  /** How long create() waits for the agent's ready line, in ms. */
  readyTimeoutMs?: number;
  /** Default per-call timeout handed to the agent connection, in ms. */
  defaultCallTimeoutMs?: number;
}

const DEFAULT_READY_TIMEOUT_MS = 30_000;

/**
 * Sandboxes as hardened containers, one per sandbox, each running the in-sandbox agent under docker-init
 * and spoken to over the container's attach stream (never `docker exec`). Create costs three requests on a
 * keep-alive connection (create, attach, start) and no inspect; exits are learnt from one shared event stream.
 */
export class DockerProvider implements SandboxProvider {
  readonly name = 'docker' as const;
  private readonly connection: DockerConnection;
  private readonly exitEvents: ContainerExitEvents;
  private readonly readyTimeoutMs: number;
  private readonly defaultCallTimeoutMs: number | undefined;

  constructor(options: DockerProviderOptions = {}) {
    this.connection = openDockerConnection({ socketPath: options.dockerSocketPath });
    this.exitEvents = new ContainerExitEvents(this.connection.docker);
    this.readyTimeoutMs = options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
    this.defaultCallTimeoutMs = options.defaultCallTimeoutMs;
  }

  private get docker(): Docker {
    return this.connection.docker;
  }

  async available(): Promise<Availability> {
    const { socketPath, endpoint } = this.connection;
    if (socketPath !== undefined && !existsSync(socketPath)) {
      return {
        ok: false,
        reason: `no Docker daemon socket at ${socketPath}: start dockerd, or set DOCKER_HOST / the docker socket option`,
        detail: { endpoint },
      };
    }
    try {
      // dockerode accepts an abortSignal here though its types omit it; without one a hung daemon hangs doctor.
      const versionWithSignal = this.docker.version as unknown as (options: { abortSignal: AbortSignal }) => Promise<Docker.DockerVersion>;
      const version = await versionWithSignal.call(this.docker, { abortSignal: AbortSignal.timeout(5_000) });
      return { ok: true, detail: { endpoint, serverVersion: version.Version, apiVersion: version.ApiVersion } };
    } catch (error) {
      const reason = describeDaemonError(endpoint, error) ?? `the Docker daemon at ${endpoint} did not answer: ${errorMessage(error)}`;
      return { ok: false, reason, detail: { endpoint } };
    }
  }

  async create(spec: SandboxSpec, options: CreateOptions): Promise<DockerSandboxHandle> {
    throwIfAborted(options.abortSignal);
    const labels = sandboxLabels({
      version: corralVersion(),
      ownerId: options.ownerId,
      sandboxId: options.sandboxId,
      expiresAtMs: options.expiresAtMs,
      specHash: specHash(spec),
    });
    const createOptions = containerCreateOptions(spec, { image: spec.image, name: containerName(options.sandboxId), labels, expiresAtMs: options.expiresAtMs });
    const container = await this.createContainer(spec, createOptions);
    let attachment: ContainerAttachment | undefined;
    try {
      [attachment] = await Promise.all([attachContainer(container, { abortSignal: options.abortSignal }), this.exitEvents.track(container.id)]);
      throwIfAborted(options.abortSignal);
      await container.start();
      // Fork copies the container's tmpfs mounts from inside its mount namespace: root and a daemon on this host.
      const forkable = this.connection.socketPath !== undefined && namespaceCopyUnavailable() === null;
      const connection = new AgentConnection({
        ...(forkable ? { capabilities: FORKABLE_AGENT_CAPABILITIES } : {}),
        writable: attachment.stdin,
        readable: attachment.stdout,
        sandboxId: options.sandboxId,
        backend: 'docker',
        workspace: SANDBOX_WORKSPACE,
        defaultTimeoutMs: this.defaultCallTimeoutMs,
      });
      const handle = new DockerSandboxHandle({
        docker: this.docker,
        containerId: container.id,
        sandboxId: options.sandboxId,
        connection,
        attachment,
        exitEvents: this.exitEvents,
        ...(forkable ? { fileSystemMaxBytes: 3 * spec.workspaceMiB * 1024 * 1024 + 16 * 1024 * 1024 } : {}),
      });
      try {
        await connection.ready({ timeoutMs: this.readyTimeoutMs, abortSignal: options.abortSignal });
      } catch (error) {
        await handle.destroy().catch(() => undefined);
        throw error;
      }
      return handle;
    } catch (error) {
      this.exitEvents.untrack(container.id);
      attachment?.destroy();
      // Best effort: the create already failed, and the reaper removes anything this misses.
      await container.remove({ force: true }).catch(() => undefined);
      if (CorralError.hasCode(error, 'ERR_ABORTED')) throw error;
      if (options.abortSignal?.aborted) throw new CorralError('ERR_ABORTED', 'sandbox creation was cancelled', { cause: error });
      const stderr = attachment?.stderrLog.text().trim().slice(-1_000);
      throw new CorralError(
        'POOL_ERR_CREATE_FAILED',
        `docker sandbox ${options.sandboxId} did not become ready: ${errorMessage(error)}${stderr ? `; agent stderr: ${stderr}` : ''}`,
        {
          cause: error,
          details: { sandboxId: options.sandboxId, containerId: container.id },
        },
      );
    }
  }

  private async createContainer(spec: SandboxSpec, createOptions: Docker.ContainerCreateOptions): Promise<Docker.Container> {
    try {
      return await this.docker.createContainer(createOptions);
    } catch (error) {
      if (isNoSuchImage(error)) {
        throw new CorralError(
          'SBX_ERR_UNAVAILABLE',
          `Docker image ${spec.image} is missing: run \`corral images build --offline\` to build it without a registry`,
          { cause: error, details: { image: spec.image } },
        );
      }
      const daemonReason = describeDaemonError(this.connection.endpoint, error);
      if (daemonReason) throw new CorralError('SBX_ERR_UNAVAILABLE', daemonReason, { cause: error });
      throw new CorralError('POOL_ERR_CREATE_FAILED', `docker could not create the sandbox container: ${errorMessage(error)}`, { cause: error });
    }
  }

  cleanup(options: { ownerAlive: (ownerId: string) => boolean; all?: boolean }): Promise<number> {
    return cleanupContainers(this.docker, options);
  }

  async close(): Promise<void> {
    this.exitEvents.close();
    this.connection.close();
  }
}
