/**
 * Byte offsets of every complete line of a JSONL file, built by one streaming pass and extended from where it
 * stopped as the file grows, so a 1 GB results.jsonl is never loaded whole: a line is read back by its offsets.
 * A trailing line without its newline is not indexed until the writer finishes it. The index reads through a
 * handle its owner opened (openInside), never by path, so it cannot be pointed elsewhere between passes.
 */
import type { FileHandle } from 'node:fs/promises';

const CHUNK_BYTES = 1 << 20;

export class JsonlLineIndex {
  /** starts[i] is where line i begins; ends[i] where its newline is. */
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  /** Bytes covered by complete lines: the next pass starts reading here. */
  private indexedBytes = 0;

  get lines(): number {
    return this.starts.length;
  }

  get bytes(): number {
    return this.indexedBytes;
  }

  /** Reads from the indexed end up to `size`; calls onLine for each new complete line. */
  async extend(handle: FileHandle, size: number, onLine: (text: string, line: number) => void): Promise<void> {
    const chunk = Buffer.alloc(CHUNK_BYTES);
    let pending: Buffer[] = [];
    let pendingStart = this.indexedBytes;
    let position = this.indexedBytes;
    while (position < size) {
      const { bytesRead } = await handle.read(chunk, 0, Math.min(CHUNK_BYTES, size - position), position);
      if (bytesRead === 0) break;
      const view = chunk.subarray(0, bytesRead);
      let from = 0;
      for (let newline = view.indexOf(0x0a); newline !== -1; newline = view.indexOf(0x0a, from)) {
        const piece = view.subarray(from, newline);
        const text = (pending.length ? Buffer.concat([...pending, piece]) : piece).toString('utf8');
        pending = [];
        const end = position + newline;
        if (text.trim().length > 0) {
          this.starts.push(pendingStart);
          this.ends.push(end);
          onLine(text, this.starts.length - 1);
        }
        from = newline + 1;
        pendingStart = position + from;
        this.indexedBytes = pendingStart;
      }
      // The chunk buffer is reused: keep a copy of the unfinished tail.
      if (from < view.length) pending.push(Buffer.from(view.subarray(from)));
      position += bytesRead;
    }
  }

  /** The text of line `line` (0-based), read by its offsets. */
  async read(handle: FileHandle, line: number): Promise<string | undefined> {
    const start = this.starts[line];
    const end = this.ends[line];
    if (start === undefined || end === undefined) return undefined;
    const buffer = Buffer.alloc(end - start);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
    return buffer.subarray(0, bytesRead).toString('utf8');
  }
}
