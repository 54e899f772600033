import type Docker from 'dockerode';
import { CorralError } from '../../core/errors.js';
import type { AgentConnection } from '../agent-client/agent-connection.js';
import { NamespaceFileSystemCopy } from '../file-system-copy/namespace-file-system-copy.js';
import type { ResetReport, SandboxHandle } from '../provider.js';
import type { FileSystemCopy } from '../snapshot.js';
import type { SandboxSession } from '../session.js';
import type { ContainerAttachment } from './container-attachment.js';
import type { ContainerExit, ContainerExitEvents } from './container-exit-events.js';
import { containerNamespacePid } from './container-namespace.js';
import { SANDBOX_USER_ID } from './container-options.js';
import { errorMessage, isGoneOrGoing } from './docker-errors.js';

/** How long to wait for the exit code after the attach stream drops, before calling it a plain close. */
const EXIT_CODE_GRACE_MS = 2_000;
/** Exit statuses of a container whose init died from a signal sent from outside: 128 + SIGKILL, 128 + SIGTERM. */
const KILLED_STATUSES = new Set([137, 143]);

export interface DockerSandboxParts {
  docker: Docker;
  containerId: string;
  sandboxId: string;
  connection: AgentConnection;
  attachment: ContainerAttachment;
  exitEvents: ContainerExitEvents;
  /** Set when this sandbox can be forked (a daemon on this host, corral is root): the snapshot cap in bytes. */
  fileSystemMaxBytes?: number;
}

/**
 * One container running the agent. It notices its own death when the attach stream drops, then asks the
 * provider's event stream how it ended. Pending calls fail with SBX_ERR_KILLED when it was killed (OOM,
 * `docker kill`, `docker stop`) and SBX_ERR_CLOSED otherwise (the agent quit, e.g. at its deadline).
 */
export class DockerSandboxHandle implements SandboxHandle {
  readonly containerId: string;
  private closeReason: Error | undefined;
  private destroyRequested = false;
  private removal: Promise<void> | undefined;
  private readonly listeners: Array<(reason: Error) => void> = [];
  private initPid: number | undefined;
  readonly fileSystem?: FileSystemCopy;

  constructor(private readonly parts: DockerSandboxParts) {
    this.containerId = parts.containerId;
    if (parts.fileSystemMaxBytes !== undefined) {
      this.fileSystem = new NamespaceFileSystemCopy({
        backend: 'docker',
        sandboxId: parts.sandboxId,
        uid: SANDBOX_USER_ID,
        maxBytes: parts.fileSystemMaxBytes,
        namespacePid: async () => (this.initPid = await containerNamespacePid(parts.docker, this.containerId, this.initPid)),
        closed: () => this.closed,
      });
    }
    parts.attachment.disconnected.then(async () => {
      if (this.closeReason) return; // we closed it ourselves
      this.finish(await parts.exitEvents.exitOf(this.containerId, EXIT_CODE_GRACE_MS));
    });
    parts.connection.onClose((reason) => {
      // The agent connection gave up on its own (protocol error, dead-man switch): the container is useless.
      if (this.closeReason) return;
      this.markClosed(reason);
      void this.remove().catch(() => undefined);
    });
  }

  get session(): SandboxSession {
    return this.parts.connection.session;
  }

  get closed(): boolean {
    return this.closeReason !== undefined;
  }

  /** The agent's recent stderr, for diagnostics. */
  stderrTail(): string {
    return this.parts.attachment.stderrLog.text();
  }

  async health(options: { abortSignal?: AbortSignal; timeoutMs?: number } = {}): Promise<boolean> {
    if (this.closed) return false;
    try {
      await this.parts.connection.ping({ timeoutMs: options.timeoutMs ?? 5_000, abortSignal: options.abortSignal });
      return !this.closed;
    } catch {
      return false;
    }
  }

  reset(options: { abortSignal?: AbortSignal; timeoutMs?: number } = {}): Promise<ResetReport> {
    if (this.closeReason) return Promise.reject(this.closeReason);
    return this.parts.connection.reset(options);
  }

  onClose(listener: (reason: Error) => void): void {
    this.listeners.push(listener);
  }

  /** Kills and removes the container; safe to call any number of times, concurrently too. */
  destroy(): Promise<void> {
    this.destroyRequested = true;
    this.finish({ statusCode: null, outOfMemory: false });
    return this.remove();
  }

  private remove(): Promise<void> {
    this.removal ??= this.parts.docker
      .getContainer(this.containerId)
      .remove({ force: true })
      .catch((error: unknown) => {
        if (isGoneOrGoing(error)) return;
        this.removal = undefined; // let a later destroy() retry
        throw new CorralError('SBX_ERR_UNAVAILABLE', `could not remove container ${this.containerId}: ${errorMessage(error)}`, { cause: error });
      });
    return this.removal;
  }

  private finish(exit: ContainerExit): void {
    if (this.closeReason) return;
    const reason = this.describeEnd(exit);
    this.parts.exitEvents.untrack(this.containerId);
    this.markClosed(reason);
    this.parts.connection.close(reason);
    this.parts.attachment.endStdout();
    this.parts.attachment.destroy();
  }

  private markClosed(reason: Error): void {
    this.closeReason = reason;
    if (this.destroyRequested) return; // onClose is for deaths we did not ask for
    for (const listener of this.listeners.splice(0)) {
      try {
        listener(reason);
      } catch {
        // A listener's bug must not stop the others from hearing about the death.
      }
    }
  }

  private describeEnd(exit: ContainerExit): CorralError {
    const details = { sandboxId: this.parts.sandboxId, containerId: this.containerId, exitStatus: exit.statusCode, outOfMemory: exit.outOfMemory };
    if (this.destroyRequested) return new CorralError('SBX_ERR_CLOSED', `sandbox ${this.parts.sandboxId} was destroyed`, { details });
    const stderr = this.parts.attachment.stderrLog.text().trim().slice(-1_000);
    const tail = stderr ? `; agent stderr: ${stderr}` : '';
    if (exit.statusCode !== null && KILLED_STATUSES.has(exit.statusCode)) {
      const how = exit.outOfMemory
        ? `out of memory: it hit its memory limit`
        : exit.statusCode === 137
          ? 'SIGKILL from outside'
          : 'SIGTERM: stopped from outside';
      return new CorralError('SBX_ERR_KILLED', `sandbox ${this.parts.sandboxId} was killed (${how})${tail}`, { details });
    }
    const status = exit.statusCode === null ? 'its stream closed' : `its agent exited with status ${exit.statusCode}`;
    return new CorralError('SBX_ERR_CLOSED', `sandbox ${this.parts.sandboxId} is gone: ${status}${tail}`, { details });
  }
}
