/**
 * Packs and unpacks a sandbox's writable places with tar run inside the sandbox's own mount namespace (nsenter),
 * as the sandbox's unprivileged uid. Why there and as that uid: the workspace and /tmp are tmpfs mounts that exist
 * only in that namespace (so `docker commit` and the Docker archive API see none of it), and a path or symlink in
 * them then resolves against the sandbox's root with the sandbox user's rights, never the host's: a symlink race
 * in the parent cannot make the host read its own files. The tar process does not enter the sandbox's PID
 * namespace, so user code can neither see nor signal it. Needs root on the host (setns into another namespace).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { CorralError } from '../../core/errors.js';
import type { SnapshotOptions } from '../snapshot.js';
import { ArchiveBuffer } from './archive-buffer.js';

const NSENTER_CANDIDATES = ['/usr/bin/nsenter', '/bin/nsenter'];
const DEFAULT_TIMEOUT_MS = 120_000;
const STDERR_TAIL_CHARS = 2_000;

export interface NamespaceTarget {
  /** A host pid whose mount namespace is the sandbox's (its init, or bwrap's first child). */
  pid: number;
  /** Host uid (and gid) that owns the sandbox's files. */
  uid: number;
  /** Writable places relative to the sandbox root, e.g. ['workspace', 'tmp', 'dev/shm']. */
  places: readonly string[];
  /** For messages: the sandbox id. */
  sandboxId: string;
}

/** Why namespace copies cannot run here, or null when they can. */
export function namespaceCopyUnavailable(): string | null {
  if (process.geteuid?.() !== 0) return 'forking a sandbox copies its file system inside its namespace, which needs corral to run as root';
  if (!NSENTER_CANDIDATES.some((path) => existsSync(path))) return 'nsenter not found: install util-linux';
  return null;
}

function nsenterArguments(target: NamespaceTarget, tarArguments: readonly string[]): string[] {
  const id = String(target.uid);
  return ['--target', String(target.pid), '--mount', '--net', '--ipc', '--uts', '--setuid', id, '--setgid', id, '--', 'tar', ...tarArguments];
}

/** A tar of the writable places as they are now. Refuses (SBX_ERR_FORK_FAILED) an archive over maxBytes. */
export function packWritablePlaces(target: NamespaceTarget, options: SnapshotOptions & { maxBytes: number }): Promise<Buffer> {
  // Exit status 1 is "a file changed as we read it": a process was writing; the copy is still a consistent tar.
  const tarArguments = ['--create', '--file=-', '--directory=/', '--numeric-owner', '--sparse', ...target.places];
  return runTar(target, tarArguments, { ...options, acceptedStatuses: [0, 1], input: null });
}

/** Unpacks a tar made by packWritablePlaces into the sandbox (modes kept; every file owned by the sandbox uid). */
export async function unpackWritablePlaces(target: NamespaceTarget, archive: Buffer, options: SnapshotOptions = {}): Promise<void> {
  const tarArguments = ['--extract', '--file=-', '--directory=/', '--numeric-owner', '--preserve-permissions', '--no-same-owner', '--delay-directory-restore'];
  await runTar(target, tarArguments, { ...options, acceptedStatuses: [0], input: archive, maxBytes: 0 });
}

function runTar(
  target: NamespaceTarget,
  tarArguments: readonly string[],
  options: SnapshotOptions & { acceptedStatuses: readonly number[]; input: Buffer | null; maxBytes: number },
): Promise<Buffer> {
  const nsenter = NSENTER_CANDIDATES.find((path) => existsSync(path));
  if (nsenter === undefined) return Promise.reject(new CorralError('SBX_ERR_UNSUPPORTED', 'nsenter not found: install util-linux'));
  const what = options.input === null ? 'packing' : 'unpacking';
  return new Promise((resolve, reject) => {
    const child = spawn(nsenter, nsenterArguments(target, tarArguments), {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' },
    });
    const packed = options.input === null ? new ArchiveBuffer(options.maxBytes) : null;
    let stderr = '';
    let failure: CorralError | undefined;
    const fail = (message: string) => {
      failure ??= new CorralError('SBX_ERR_FORK_FAILED', `${what} the file system of sandbox ${target.sandboxId} failed: ${message}`, {
        details: { sandboxId: target.sandboxId },
      });
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => fail(`it took longer than ${options.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms`), options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const onAbort = () => {
      failure ??= new CorralError('ERR_ABORTED', `${what} the file system of sandbox ${target.sandboxId} was cancelled`);
      child.kill('SIGKILL');
    };
    options.abortSignal?.addEventListener('abort', onAbort, { once: true });
    if (options.abortSignal?.aborted) onAbort();
    child.stdout.on('data', (chunk: Buffer) => {
      if (packed === null || failure) return;
      if (packed.length + chunk.length > options.maxBytes) fail(`the archive passed ${options.maxBytes} bytes`);
      else packed.append(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS)));
    child.stdin.on('error', () => undefined); // tar that exits early closes its stdin; its status says why
    child.stdin.end(options.input ?? undefined);
    child.on('error', (error) => fail(`cannot start nsenter: ${error.message}`));
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      options.abortSignal?.removeEventListener('abort', onAbort);
      if (failure) return reject(failure);
      if (status !== null && options.acceptedStatuses.includes(status)) return resolve(packed?.bytes() ?? Buffer.alloc(0));
      fail(`tar ended with ${signal ?? `status ${status}`}${stderr.trim() ? `: ${stderr.trim()}` : ''}`);
      reject(failure);
    });
  });
}
