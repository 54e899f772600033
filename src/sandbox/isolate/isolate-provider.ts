/**
 * The isolate backend: one V8 isolate (isolated-vm 5.x, the last line that supports Node 20) per sandbox, for the
 * JavaScript REPL tool only. The isolate has its own heap with a memory limit and per-call timeouts; it sees no
 * Node.js API (no require, process, fs, network or timers). Host APIs cross in as copied values only: the console
 * is a callback that receives copied strings.
 *
 * Isolates live inside this process and die with it, so cleanup only reaps this process's own orphans.
 */
import { throwIfAborted } from '../../core/abort.js';
import { CorralError } from '../../core/errors.js';
import type { Availability, CreateOptions, SandboxHandle, SandboxProvider } from '../provider.js';
import type { SandboxSpec } from '../spec.js';
import { IsolateHandle } from './isolate-handle.js';
import { reapSandboxes } from './live-isolates.js';
import { loadIsolatedVm } from './load-isolated-vm.js';

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class IsolateProvider implements SandboxProvider {
  readonly name = 'isolate' as const;

  /** Loads the native module and runs `1 + 1` in a throwaway isolate. */
  async available(): Promise<Availability> {
    const detail = { node: process.version, abi: process.versions.modules };
    try {
      const ivm = await loadIsolatedVm();
      const isolate = new ivm.Isolate({ memoryLimit: 8 });
      try {
        const answer: unknown = isolate.createContextSync().evalSync('1 + 1', { timeout: 1_000 });
        if (answer !== 2) return { ok: false, reason: `a test isolate answered ${String(answer)} to 1 + 1`, detail };
      } finally {
        isolate.dispose();
      }
      return { ok: true, detail };
    } catch (error) {
      return {
        ok: false,
        reason: `isolated-vm cannot run here (${describe(error)}): it needs Node 20 and a native build of isolated-vm 5.x; run \`npm rebuild isolated-vm\``,
        detail,
      };
    }
  }

  /** Builds the isolate, its context and console synchronously (about 1 ms), so the sandbox is ready on return. */
  async create(spec: SandboxSpec, options: CreateOptions): Promise<SandboxHandle> {
    throwIfAborted(options.abortSignal);
    let ivm;
    try {
      ivm = await loadIsolatedVm();
    } catch (error) {
      throw new CorralError('SBX_ERR_UNAVAILABLE', `isolated-vm cannot be loaded: ${describe(error)}`, { cause: error });
    }
    throwIfAborted(options.abortSignal);
    try {
      return new IsolateHandle(ivm, spec, options);
    } catch (error) {
      throw new CorralError('POOL_ERR_CREATE_FAILED', `could not create a JavaScript isolate: ${describe(error)}`, {
        cause: error,
        details: { sandboxId: options.sandboxId },
      });
    }
  }

  /**
   * Frees this process's isolate sandboxes whose owner is not alive or whose deadline passed (all of them with
   * `all`), notifying their onClose listeners. Nothing from other processes can exist: isolates die with them.
   */
  async cleanup(options: { ownerAlive: (ownerId: string) => boolean; all?: boolean }): Promise<number> {
    return reapSandboxes(
      options,
      (sandbox) => new CorralError('SBX_ERR_CLOSED', `the sandbox was reaped by cleanup (owner ${sandbox.ownerId} gone, expired, or cleanup of all)`),
    );
  }

  /** No connections or daemons to release. */
  async close(): Promise<void> {}
}
