/**
 * Where a pack's bytes land as tar writes them: one buffer reserved up front for the archive's bound, filled in
 * place. Why: collecting tar's 64 KiB pipe chunks and joining them at the end allocated the archive twice (1,600
 * chunks kept alive, then Buffer.concat), and on this machine fresh memory costs ~2.8 ms per MB in page faults: for
 * a 100 MB workspace that was most of a snapshot's time (docs/sandboxes.md, "Fork"). A reservation is address space
 * only: its pages become resident as they are written, so a 100 MB archive under a 784 MB bound holds ~100 MB, and
 * each chunk is garbage at once (its memory reused for the next). Past the reservation (bounds above
 * MAX_RESERVED_BYTES, or where the reservation was refused) the buffer doubles.
 */
import { constants } from 'node:buffer';

/** The most address space reserved up front. */
export const MAX_RESERVED_BYTES = 1024 * 1024 * 1024;
/** Where a refused reservation starts instead. */
const FALLBACK_BYTES = 16 * 1024 * 1024;

export class ArchiveBuffer {
  private buffer: Buffer;
  private filled = 0;

  constructor(maxBytes: number) {
    this.buffer = reserve(Math.max(1, Math.min(maxBytes, MAX_RESERVED_BYTES)));
  }

  get length(): number {
    return this.filled;
  }

  append(chunk: Buffer): void {
    const needed = this.filled + chunk.length;
    if (needed > this.buffer.length) {
      const grown = Buffer.allocUnsafeSlow(Math.min(Math.max(needed, this.buffer.length * 2), constants.MAX_LENGTH));
      this.buffer.copy(grown, 0, 0, this.filled);
      this.buffer = grown;
    }
    chunk.copy(this.buffer, this.filled);
    this.filled = needed;
  }

  /** The bytes written so far (a view: no copy). */
  bytes(): Buffer {
    return this.buffer.subarray(0, this.filled);
  }
}

function reserve(bytes: number): Buffer {
  try {
    return Buffer.allocUnsafeSlow(bytes);
  } catch {
    // The host refused that much address space at once (strict overcommit): start small and grow.
    return Buffer.allocUnsafeSlow(Math.min(bytes, FALLBACK_BYTES));
  }
}
