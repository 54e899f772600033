/**
 * Splits a byte stream into lines without copying more than needed: a line that arrives in one chunk is
 * sliced, only lines spanning chunks are concatenated. Lines longer than maxLineBytes are a protocol error.
 */
export class JsonLineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly onOverflow: (bytes: number) => void,
    private readonly maxLineBytes: number,
  ) {}

  push(chunk: Buffer | string): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let start = 0;
    let newline = bytes.indexOf(10);
    while (newline !== -1) {
      const piece = bytes.subarray(start, newline);
      const line = this.pending.length === 0 ? piece : Buffer.concat([...this.pending, piece]);
      this.pending = [];
      this.pendingBytes = 0;
      this.onLine(line.toString('utf8'));
      start = newline + 1;
      newline = bytes.indexOf(10, start);
    }
    if (start < bytes.length) {
      this.pending.push(bytes.subarray(start));
      this.pendingBytes += bytes.length - start;
      if (this.pendingBytes > this.maxLineBytes) {
        const size = this.pendingBytes;
        this.pending = [];
        this.pendingBytes = 0;
        this.onOverflow(size);
      }
    }
  }
}
