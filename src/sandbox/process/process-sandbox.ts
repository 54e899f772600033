import type { ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { sleep } from '../../core/abort.js';
import { CorralError } from '../../core/errors.js';
import type { AgentConnection } from '../agent-client/agent-connection.js';
import { NamespaceFileSystemCopy } from '../file-system-copy/namespace-file-system-copy.js';
import type { ResetReport, SandboxHandle } from '../provider.js';
import type { FileSystemCopy } from '../snapshot.js';
import type { SandboxSession } from '../session.js';
import { firstChildPid, killProcessGroup } from './host-processes.js';
import { destroyCgroupDirectories } from './sandbox-cgroup.js';
import type { SandboxRecords } from './sandbox-records.js';

const STDERR_TAIL_BYTES = 8192;
const EXIT_WAIT_MS = 5_000;

export interface ProcessSandboxParts {
  sandboxId: string;
  child: ChildProcess;
  connection: AgentConnection;
  cgroupDirectories: readonly string[];
  hostDirectories: readonly string[];
  records: SandboxRecords;
  /** Called once teardown has finished. */
  onDestroyed?: () => void;
  /** Set when this sandbox can be forked (bwrap, corral is root): the uid owning its files and the snapshot cap. */
  namespaceCopy?: { uid: number; maxBytes: number };
}

type ExitStatus = { code: number | null; signal: NodeJS.Signals | null };

/** A running agent child process (inside bwrap, or not) as the pool sees it. */
export class ProcessSandbox implements SandboxHandle {
  private readonly closeListeners: Array<(reason: Error) => void> = [];
  private readonly exited: Promise<ExitStatus>;
  private stderrTail = '';
  private destroying: Promise<void> | undefined;
  private destroyRequested = false;
  readonly fileSystem?: FileSystemCopy;

  constructor(private readonly parts: ProcessSandboxParts) {
    const { child, connection } = parts;
    if (parts.namespaceCopy) {
      this.fileSystem = new NamespaceFileSystemCopy({
        backend: 'process',
        sandboxId: parts.sandboxId,
        uid: parts.namespaceCopy.uid,
        maxBytes: parts.namespaceCopy.maxBytes,
        // bwrap stays outside; its first child is the sandbox's init, already inside the new mount namespace.
        namespacePid: async () => {
          const pid = child.pid === undefined ? null : firstChildPid(child.pid);
          if (pid === null) throw new CorralError('SBX_ERR_CLOSED', `sandbox ${parts.sandboxId}: bwrap has no sandbox process`);
          return pid;
        },
        closed: () => this.closed,
      });
    }
    this.exited = new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode });
      // 'close' (not 'exit') so the stderr tail is complete once this resolves.
      else child.once('close', (code, signal) => resolve({ code, signal }));
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
    });
    connection.onClose((reason) => void this.diedOnItsOwn(reason));
  }

  get session(): SandboxSession {
    return this.parts.connection.session;
  }

  get closed(): boolean {
    return this.parts.connection.closed;
  }

  /** The agent's recent stderr, for diagnostics. */
  get log(): string {
    return this.stderrTail;
  }

  async health(options: { abortSignal?: AbortSignal; timeoutMs?: number } = {}): Promise<boolean> {
    if (this.closed) return false;
    try {
      await this.parts.connection.ping({ timeoutMs: options.timeoutMs ?? 5_000, abortSignal: options.abortSignal });
      return true;
    } catch {
      return false;
    }
  }

  reset(options: { abortSignal?: AbortSignal; timeoutMs?: number } = {}): Promise<ResetReport> {
    return this.parts.connection.reset({ timeoutMs: options.timeoutMs ?? 30_000, abortSignal: options.abortSignal });
  }

  /** Kills the whole tree (process group, then the cgroup), removes host directories and the record. Idempotent. */
  destroy(): Promise<void> {
    this.destroyRequested = true;
    this.destroying ??= this.teardown();
    return this.destroying;
  }

  onClose(listener: (reason: Error) => void): void {
    this.closeListeners.push(listener);
  }

  private async teardown(): Promise<void> {
    const { child, connection, sandboxId } = this.parts;
    connection.close(new CorralError('SBX_ERR_CLOSED', `${sandboxId} was destroyed`));
    // bwrap leads its own process group; its PID namespace dies with it (--die-with-parent inside).
    if (child.pid !== undefined) killProcessGroup(child.pid);
    try {
      await Promise.race([this.exited, sleep(EXIT_WAIT_MS)]);
      await destroyCgroupDirectories(this.parts.cgroupDirectories);
      for (const directory of this.parts.hostDirectories) await rm(directory, { recursive: true, force: true });
      await this.parts.records.remove(sandboxId);
    } finally {
      this.parts.onDestroyed?.();
    }
  }

  private async diedOnItsOwn(reason: Error): Promise<void> {
    if (this.destroyRequested) return;
    const status = await Promise.race([this.exited, sleep(1_000).then(() => null)]);
    if (this.destroyRequested) return;
    const killed = status !== null && (status.signal === 'SIGKILL' || status.code === 137);
    const how = status === null ? 'is not answering' : status.signal ? `exited on ${status.signal}` : `exited with status ${status.code}`;
    const error = new CorralError(killed ? 'SBX_ERR_KILLED' : 'SBX_ERR_CLOSED', `sandbox ${this.parts.sandboxId}: the agent ${how}`, {
      cause: reason,
      details: { sandboxId: this.parts.sandboxId, exitCode: status?.code ?? null, signal: status?.signal ?? null, log: this.stderrTail },
    });
    for (const listener of this.closeListeners.splice(0)) listener(error);
  }
}
