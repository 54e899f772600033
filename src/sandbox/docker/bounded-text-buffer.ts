/**
 * Keeps the last `maxChars` characters written to it. The agent's stderr goes here so a crash can be
 * explained in an error message without an agent that logs forever growing host memory.
 */
export class BoundedTextBuffer {
  private chunks: string[] = [];
  private length = 0;
  private droppedChars = 0;

  constructor(private readonly maxChars = 16_384) {}

  append(text: string): void {
    if (text.length === 0) return;
    this.chunks.push(text);
    this.length += text.length;
    while (this.length > this.maxChars && this.chunks.length > 0) {
      const excess = this.length - this.maxChars;
      const first = this.chunks[0]!;
      if (first.length <= excess) {
        this.chunks.shift();
        this.length -= first.length;
        this.droppedChars += first.length;
      } else {
        this.chunks[0] = first.slice(excess);
        this.length -= excess;
        this.droppedChars += excess;
      }
    }
  }

  /** The retained text, prefixed with a marker when older text was dropped. */
  text(): string {
    const body = this.chunks.join('');
    return this.droppedChars > 0 ? `[…${this.droppedChars} earlier chars dropped]\n${body}` : body;
  }
}
