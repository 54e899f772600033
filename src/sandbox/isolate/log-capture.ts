/**
 * Collects the console lines of one call, within bounds: a `for` loop that logs a million lines must not grow the
 * host's heap or the tool result without limit. Lines past the bounds are counted and summarised in one last line.
 */
export const MAX_LOG_LINES = 1_000;
export const MAX_LOG_CHARS = 100_000;

export class LogCapture {
  private readonly lines: string[] = [];
  private characters = 0;
  private droppedLines = 0;
  private stopped = false;

  /** Called for every console line of the call; ignored once the call has finished. */
  add(line: string): void {
    if (this.stopped) return;
    const room = MAX_LOG_CHARS - this.characters;
    if (this.lines.length >= MAX_LOG_LINES || room <= 0) {
      this.droppedLines += 1;
      return;
    }
    const kept = line.length <= room ? line : `${line.slice(0, room)}… [line truncated]`;
    this.lines.push(kept);
    this.characters += kept.length;
  }

  /** Ends the capture; later lines (a disposed isolate's stragglers) are dropped. */
  finish(): string[] {
    if (this.stopped) return this.lines;
    this.stopped = true;
    if (this.droppedLines > 0) this.lines.push(`[${this.droppedLines} more console lines dropped: output limit reached]`);
    return this.lines;
  }
}
