/**
 * Splits a byte stream into lines without copying more than needed: a line that arrives in one chunk is
 * sliced, only lines spanning chunks are concatenated.
 *
 * The bytes of an unterminated line are the only thing the host holds unparsed for a sandbox (chunks are split
 * synchronously as they arrive), so bounding them bounds what a hostile stream can make the host buffer: once
 * they pass maxLineBytes the splitter drops them, reports the overflow once and ignores the rest of the stream.
 */
export class JsonLineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private stopped = false;

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly onOverflow: (bytes: number) => void,
    private readonly maxLineBytes: number,
  ) {}

  /** Bytes received but not yet handed out as a line. Never above maxLineBytes. */
  get bufferedBytes(): number {
    return this.pendingBytes;
  }

  /** True after an overflow or stop(): every later chunk is discarded unread. */
  get isStopped(): boolean {
    return this.stopped;
  }

  /** Drops what is buffered and ignores all further input (the connection is closed). */
  stop(): void {
    this.stopped = true;
    this.pending = [];
    this.pendingBytes = 0;
  }

  push(chunk: Buffer | string): void {
    if (this.stopped) return;
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let start = 0;
    let newline = bytes.indexOf(10);
    while (newline !== -1) {
      const lineBytes = this.pendingBytes + newline - start;
      if (lineBytes > this.maxLineBytes) return this.overflow(lineBytes);
      const piece = bytes.subarray(start, newline);
      const line = this.pending.length === 0 ? piece : Buffer.concat([...this.pending, piece]);
      this.pending = [];
      this.pendingBytes = 0;
      this.onLine(line.toString('utf8'));
      if (this.stopped) return; // the line closed the connection
      start = newline + 1;
      newline = bytes.indexOf(10, start);
    }
    if (start >= bytes.length) return;
    const tailBytes = this.pendingBytes + bytes.length - start;
    if (tailBytes > this.maxLineBytes) return this.overflow(tailBytes);
    // A copy, so a small tail never pins its whole chunk: memory held is exactly bufferedBytes.
    this.pending.push(Buffer.from(bytes.subarray(start)));
    this.pendingBytes = tailBytes;
  }

  private overflow(bytes: number): void {
    this.stop();
    this.onOverflow(bytes);
  }
}
