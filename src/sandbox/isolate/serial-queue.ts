/**
 * Runs tasks one at a time in arrival order. A REPL context is shared state: two cells interleaving at their
 * `await` points would mix their console lines and race on globals, so each sandbox runs its calls in turn.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private pending = 0;

  /** Number of tasks queued or running. */
  get size(): number {
    return this.pending;
  }

  run<T>(task: () => Promise<T>): Promise<T> {
    this.pending += 1;
    const result = this.tail.then(task);
    // The next task waits for this one to settle either way; a failure belongs to its own caller only.
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result.finally(() => {
      this.pending -= 1;
    });
  }
}
