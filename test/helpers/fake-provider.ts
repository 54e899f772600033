import { CorralError } from '../../src/core/errors.js';
import type { Availability, CreateOptions, ResetReport, SandboxHandle, SandboxProvider } from '../../src/sandbox/provider.js';
import type { SandboxSession } from '../../src/sandbox/session.js';
import type { SandboxSpec } from '../../src/sandbox/spec.js';

/** In-memory provider for pool logic tests: no processes, controllable failures and deaths. */
export class FakeHandle implements SandboxHandle {
  closed = false;
  destroyCount = 0;
  resetOk = true;
  private readonly listeners: ((reason: Error) => void)[] = [];
  readonly session: SandboxSession;

  constructor(readonly sandboxId: string) {
    this.session = { id: sandboxId } as unknown as SandboxSession;
  }

  async health(): Promise<boolean> {
    return !this.closed;
  }

  async reset(): Promise<ResetReport> {
    return { ok: this.resetOk, durationMs: 0 };
  }

  async destroy(): Promise<void> {
    this.destroyCount++;
    this.closed = true;
  }

  onClose(listener: (reason: Error) => void): void {
    this.listeners.push(listener);
  }

  /** Simulates the sandbox dying on its own. */
  die(): void {
    this.closed = true;
    for (const listener of this.listeners) listener(new CorralError('SBX_ERR_KILLED', 'killed by test'));
  }
}

export class FakeProvider implements SandboxProvider {
  readonly name = 'process' as const;
  readonly created: FakeHandle[] = [];
  failNextCreates = 0;
  createDelayMs = 0;

  async available(): Promise<Availability> {
    return { ok: true };
  }

  async create(_spec: SandboxSpec, options: CreateOptions): Promise<SandboxHandle> {
    if (this.createDelayMs) await new Promise((resolve) => setTimeout(resolve, this.createDelayMs));
    if (this.failNextCreates > 0) {
      this.failNextCreates--;
      throw new CorralError('SBX_ERR_UNAVAILABLE', 'fake create failure');
    }
    const handle = new FakeHandle(options.sandboxId);
    this.created.push(handle);
    return handle;
  }

  async cleanup(): Promise<number> {
    return 0;
  }

  async close(): Promise<void> {}
}
