/**
 * FileSystemCopy for sandboxes whose writable places live in a mount namespace on this host (docker, process):
 * one tar out of the parent, the same bytes into each child. Chosen over `docker commit` (which does not see tmpfs
 * mounts at all, and costs an image per fork) and over per-file copies through the agent (a JSON line per chunk):
 * see docs/sandboxes.md for the figures.
 */
import { CorralError } from '../../core/errors.js';
import type { FileSystemCopy, SandboxSnapshot, SnapshotOptions } from '../snapshot.js';
import type { BackendName } from '../spec.js';
import { packWritablePlaces, unpackWritablePlaces } from './namespace-tar.js';

/** The writable places of docker and process sandboxes (the root is read-only in both). */
export const WRITABLE_PLACES = Object.freeze(['workspace', 'tmp', 'dev/shm']);

export interface NamespaceCopyOptions {
  backend: BackendName;
  sandboxId: string;
  /** Host uid owning the sandbox's files. */
  uid: number;
  /** Upper bound of an archive: every writable place full, plus tar's headers. */
  maxBytes: number;
  /** Finds the host pid in the sandbox's mount namespace now; throws when the sandbox is gone. */
  namespacePid(): Promise<number>;
  closed(): boolean;
}

export class NamespaceFileSystemCopy implements FileSystemCopy {
  constructor(private readonly options: NamespaceCopyOptions) {}

  async snapshot(options: SnapshotOptions = {}): Promise<SandboxSnapshot> {
    const takenAtMs = Date.now();
    const archive = await packWritablePlaces(await this.target(), { ...options, maxBytes: this.options.maxBytes });
    return Object.freeze({ backend: this.options.backend, archive, sizeBytes: archive.length, takenAtMs });
  }

  async restore(snapshot: SandboxSnapshot, options: SnapshotOptions = {}): Promise<void> {
    if (snapshot.backend !== this.options.backend) {
      throw new CorralError('SBX_ERR_UNSUPPORTED', `a ${snapshot.backend} snapshot cannot start a ${this.options.backend} sandbox`);
    }
    await unpackWritablePlaces(await this.target(), snapshot.archive, options);
  }

  private async target() {
    if (this.options.closed()) throw new CorralError('SBX_ERR_CLOSED', `sandbox ${this.options.sandboxId} is gone`);
    return { pid: await this.options.namespacePid(), uid: this.options.uid, places: WRITABLE_PLACES, sandboxId: this.options.sandboxId };
  }
}
