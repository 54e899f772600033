/**
 * Every isolate sandbox alive in this process. Isolates carry no labels (they are memory, not containers), so this
 * process-wide record plays that role: any provider instance, like one created after a restart of the pool, can
 * find and free sandboxes whose owner is gone or whose deadline passed. Across processes there is nothing to reap,
 * since an isolate dies with the process that made it.
 */
export interface ReapableSandbox {
  readonly ownerId: string;
  readonly expiresAtMs: number;
  /** Frees the sandbox and tells its onClose listeners why. */
  reap(reason: Error): void;
}

const liveSandboxes = new Set<ReapableSandbox>();

export function trackSandbox(sandbox: ReapableSandbox): void {
  liveSandboxes.add(sandbox);
}

export function untrackSandbox(sandbox: ReapableSandbox): void {
  liveSandboxes.delete(sandbox);
}

/** Reaps sandboxes whose owner is not alive or whose deadline passed (every one with `all`); returns the count. */
export function reapSandboxes(options: { ownerAlive: (ownerId: string) => boolean; all?: boolean }, reason: (sandbox: ReapableSandbox) => Error): number {
  const now = Date.now();
  const doomed = [...liveSandboxes].filter((sandbox) => options.all === true || sandbox.expiresAtMs <= now || !options.ownerAlive(sandbox.ownerId));
  for (const sandbox of doomed) sandbox.reap(reason(sandbox));
  return doomed.length;
}
