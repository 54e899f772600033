/**
 * The create rate limit of one backend: starts are spaced 1/rate apart, with no burst (dockerd is most fragile
 * exactly when a thousand rollouts start together). Timed with performance.now, so a test that fakes Date only
 * still sees real spacing.
 */
export class CreateSpacing {
  private nextAtMs = Number.NEGATIVE_INFINITY;
  private readonly intervalMs: number;

  /** `perSecond` 0: no limit. */
  constructor(perSecond: number) {
    this.intervalMs = perSecond > 0 ? 1000 / perSecond : 0;
  }

  /** Resolves when the next create may start, and books that start. */
  async turn(): Promise<void> {
    if (this.intervalMs === 0) return;
    const nowMs = performance.now();
    const atMs = Math.max(nowMs, this.nextAtMs);
    this.nextAtMs = atMs + this.intervalMs;
    if (atMs > nowMs) await new Promise((resolve) => setTimeout(resolve, atMs - nowMs));
  }
}
