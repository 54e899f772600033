/**
 * Which page each passage belongs to, in memory: passages are numbered in page order, so a sorted list of each
 * page's first passage answers by binary search (8 bytes a page: 8 MiB at a million pages). Why: ranking keeps
 * each page's best passage, and reading a candidate's row to learn its page cost ~7 µs a candidate (a random row
 * in a file larger than SQLite's cache), most of an exactly scored query's time besides its postings. Each build
 * batch stores its pages' starts with its other rows (the batch table), so a resumed build has them too.
 */

/** A batch's pages that hold passages, as (page ordinal, first passage number) pairs of little-endian uint32. */
export function encodePageStarts(ordinals: readonly number[], firstPassages: readonly number[]): Buffer {
  const bytes = Buffer.alloc(ordinals.length * 8);
  ordinals.forEach((ordinal, index) => {
    bytes.writeUInt32LE(ordinal, index * 8);
    bytes.writeUInt32LE(firstPassages[index] as number, index * 8 + 4);
  });
  return bytes;
}

export class PassagePages {
  private constructor(
    private readonly firstPassages: Uint32Array,
    private readonly ordinals: Uint32Array,
  ) {}

  /**
   * Joins the batches' page starts (in batch order). Throws a plain Error when they are not a strictly increasing
   * cover of passages 1..passageCount (the caller reports the file as damaged).
   */
  static fromBatches(blobs: readonly Uint8Array[], passageCount: number): PassagePages {
    const count = blobs.reduce((total, blob) => total + Math.floor(blob.length / 8), 0);
    const firstPassages = new Uint32Array(count);
    const ordinals = new Uint32Array(count);
    let at = 0;
    for (const blob of blobs) {
      if (blob.length % 8 !== 0) throw new Error('a batch lists its pages in a truncated record');
      const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
      for (let offset = 0; offset < blob.length; offset += 8, at += 1) {
        ordinals[at] = view.getUint32(offset, true);
        firstPassages[at] = view.getUint32(offset + 4, true);
        if (at === 0 ? firstPassages[at] !== 1 : (firstPassages[at] as number) <= (firstPassages[at - 1] as number)) {
          throw new Error(`the batches' page starts are out of order at page ${ordinals[at]}`);
        }
      }
    }
    if (count === 0 || (firstPassages[count - 1] as number) > passageCount) throw new Error(`the batches' page starts do not cover ${passageCount} passages`);
    return new PassagePages(firstPassages, ordinals);
  }

  /** The ordinal of the page holding `passage` (1..passageCount). */
  pageOf(passage: number): number {
    const { firstPassages } = this;
    // The last page whose first passage is at or before `passage`.
    let low = 0;
    let high = firstPassages.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if ((firstPassages[middle] as number) <= passage) low = middle;
      else high = middle - 1;
    }
    return this.ordinals[low] as number;
  }
}
