/**
 * A posting list as bytes: for each passage holding the term, in increasing passage order, the gap from the
 * previous passage (the first from 0), the term's frequency there and the passage's BM25 length, each as an unsigned
 * LEB128 varint (7 bits a byte, high bit set on all but the last). Most postings take 3–4 bytes, and a list decodes
 * in a tight loop over a Buffer: ~10 ns a posting, where reading postings as SQL rows costs ~200 ns. The length rides
 * in the posting because looking it up in a table of every passage's length (5 MB at a million pages) missed the CPU
 * cache on nearly every posting: ~100 ns each, most of a query's time.
 */

/** Grows a byte buffer by doubling; `bytes()` is a copy of what was written. */
class ByteWriter {
  private buffer = new Uint8Array(64);
  private used = 0;

  varint(value: number): void {
    if (this.used + 5 > this.buffer.length) {
      const larger = new Uint8Array(this.buffer.length * 2);
      larger.set(this.buffer);
      this.buffer = larger;
    }
    let rest = value;
    while (rest >= 0x80) {
      this.buffer[this.used++] = (rest & 0x7f) | 0x80;
      rest >>>= 7;
    }
    this.buffer[this.used++] = rest;
  }

  bytes(): Buffer {
    return Buffer.from(this.buffer.subarray(0, this.used));
  }
}

/** Encodes passages (strictly increasing, below 2^32) with their frequencies (at least 1) and lengths. */
export function encodePostings(passages: readonly number[], frequencies: readonly number[], lengths: readonly number[]): Buffer {
  const writer = new ByteWriter();
  let previous = 0;
  passages.forEach((passage, index) => {
    writer.varint(passage - previous);
    writer.varint(frequencies[index] ?? 1);
    writer.varint(lengths[index] ?? 1);
    previous = passage;
  });
  return writer.bytes();
}

/** The most postings `bytes` can hold (each takes at least three bytes): a size for decodePostings' arrays. */
export function postingCapacity(bytes: Uint8Array): number {
  return Math.ceil(bytes.length / 3);
}

/**
 * Decodes `bytes` into `passages`, `frequencies` and `lengths` (each at least postingCapacity(bytes) long), in
 * passage order; returns how many postings there were. Arrays rather than a callback per posting: this loop is a
 * query's hot path.
 */
export function decodePostings(bytes: Uint8Array, passages: Uint32Array, frequencies: Uint32Array, lengths: Uint32Array): number {
  const end = bytes.length;
  let at = 0;
  let passage = 0;
  let count = 0;
  while (at < end) {
    let byte = bytes[at++] as number;
    let gap = byte & 0x7f;
    for (let scale = 0x80; byte >= 0x80; scale *= 0x80) {
      byte = bytes[at++] as number;
      gap += (byte & 0x7f) * scale;
    }
    byte = bytes[at++] as number;
    let frequency = byte & 0x7f;
    for (let scale = 0x80; byte >= 0x80; scale *= 0x80) {
      byte = bytes[at++] as number;
      frequency += (byte & 0x7f) * scale;
    }
    byte = bytes[at++] as number;
    let length = byte & 0x7f;
    for (let scale = 0x80; byte >= 0x80; scale *= 0x80) {
      byte = bytes[at++] as number;
      length += (byte & 0x7f) * scale;
    }
    if (at > end) throw new Error('a posting list ends inside a number');
    passage += gap;
    passages[count] = passage;
    frequencies[count] = frequency;
    lengths[count] = length;
    count += 1;
  }
  return count;
}
