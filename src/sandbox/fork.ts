/**
 * Fork: n new sandboxes whose writable places start as copies of one sandbox's at this moment. One snapshot of the
 * parent (packed once, whatever n is), then each child, fresh from its backend or the warm pool, is filled from it.
 * Nothing running carries over. The pool's Lease.fork is built on these; the conformance suite calls them directly.
 */
import { CorralError } from '../core/errors.js';
import type { SandboxHandle } from './provider.js';
import type { FileSystemCopy, SandboxSnapshot, SnapshotOptions } from './snapshot.js';

/** The handle's file-system copy, or SBX_ERR_UNSUPPORTED naming the backend (e.g. an isolate: a V8 heap cannot be copied). */
export function fileSystemCopyOf(handle: SandboxHandle): FileSystemCopy {
  if (handle.fileSystem && handle.session.capabilities.has('fork')) return handle.fileSystem;
  throw new CorralError(
    'SBX_ERR_UNSUPPORTED',
    `the ${handle.session.backend} sandbox ${handle.session.id} cannot be forked here` +
      (handle.session.backend === 'isolate' ? ' (a V8 isolate has no file system to copy and its heap cannot be cloned)' : ''),
    { details: { backend: handle.session.backend } },
  );
}

/** Fills a fresh child from a snapshot; a child that cannot be filled is destroyed, never handed out half copied. */
export async function restoreSnapshot(child: SandboxHandle, snapshot: SandboxSnapshot, options: SnapshotOptions = {}): Promise<void> {
  try {
    await fileSystemCopyOf(child).restore(snapshot, options);
  } catch (error) {
    await child.destroy().catch(() => undefined);
    throw error;
  }
}

/**
 * Backend-level fork (no pool): snapshots `parent`, creates `count` children with `createChild`, fills each. On any
 * failure every child made so far is destroyed and the first error thrown.
 */
export async function forkHandle(
  parent: SandboxHandle,
  count: number,
  createChild: (index: number) => Promise<SandboxHandle>,
  options: SnapshotOptions = {},
): Promise<SandboxHandle[]> {
  if (!Number.isInteger(count) || count < 1)
    throw new CorralError('SBX_ERR_INVALID_ARGUMENT', `fork needs a whole number of children (1 or more), not ${count}`);
  const snapshot = await fileSystemCopyOf(parent).snapshot(options);
  const settled = await Promise.allSettled(
    Array.from({ length: count }, async (_, index) => {
      const child = await createChild(index);
      await restoreSnapshot(child, snapshot, options);
      return child;
    }),
  );
  const failure = settled.find((outcome) => outcome.status === 'rejected');
  const children = settled.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  if (failure) {
    await Promise.all(children.map((child) => child.destroy().catch(() => undefined)));
    throw failure.reason;
  }
  return children;
}
