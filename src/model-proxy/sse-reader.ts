/**
 * Reads a server-sent event stream as it arrives: bytes in, each event's data out (its `data:` lines joined).
 * Comments and other fields are skipped. A line longer than the cap fails, so a broken upstream cannot make the
 * proxy hold an unbounded buffer.
 */
const MAX_LINE_CHARS = 16 * 1024 * 1024;

export class SseReader {
  private readonly decoder = new TextDecoder();
  private pending = '';
  private data: string[] = [];

  /** The data of every event this chunk completed. */
  push(chunk: Uint8Array): string[] {
    this.pending += this.decoder.decode(chunk, { stream: true });
    const events: string[] = [];
    let lineStart = 0;
    for (let newline = this.pending.indexOf('\n'); newline !== -1; newline = this.pending.indexOf('\n', lineStart)) {
      const line = this.pending.charCodeAt(newline - 1) === 13 ? this.pending.slice(lineStart, newline - 1) : this.pending.slice(lineStart, newline);
      lineStart = newline + 1;
      this.readLine(line, events);
    }
    this.pending = this.pending.slice(lineStart);
    if (this.pending.length > MAX_LINE_CHARS) throw new Error(`the event stream has a line longer than ${MAX_LINE_CHARS} characters`);
    return events;
  }

  /** What a stream that ended without a last blank line still held. */
  end(): string[] {
    const events: string[] = [];
    if (this.pending !== '') this.readLine(this.pending, events);
    this.pending = '';
    this.readLine('', events);
    return events;
  }

  private readLine(line: string, events: string[]): void {
    if (line === '') {
      if (this.data.length > 0) events.push(this.data.join('\n'));
      this.data = [];
    } else if (line.startsWith('data:')) this.data.push(line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5));
  }
}
