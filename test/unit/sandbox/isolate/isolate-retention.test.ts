/**
 * Issue 21: after 10,000s of isolate sessions the server kept closed sandboxes reachable. A heap snapshot of
 * `corral serve` after 4,300 churned /mcp/js sessions showed 241 IsolateHandles, all closed, each held only by a V8
 * global handle on the onCatastrophicError function that isolated-vm keeps for the isolate and, for some isolates,
 * does not free at dispose(); that function closed over the REPL, so the handle, lease, MCP server and the isolated-vm
 * wrappers (with the native memory behind them) stayed alive. The isolated-vm race is not reproducible in a small
 * test, so the test below keeps every handler it is given, as isolated-vm does in the bad case, around real
 * isolates and real sandbox handles, and asserts that destroyed sandboxes still become garbage.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { IsolateHandle } from '../../../../src/sandbox/isolate/isolate-handle.js';
import { loadIsolatedVm, type IsolatedVm } from '../../../../src/sandbox/isolate/load-isolated-vm.js';
import { parseSandboxSpec } from '../../../../src/sandbox/spec.js';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const CHURNED = 200;

/** isolated-vm whose every Isolate's onCatastrophicError stays referenced forever, like an unfreed global handle. */
function ivmKeepingErrorHandlers(ivm: IsolatedVm, kept: unknown[]): IsolatedVm {
  class KeepingIsolate extends ivm.Isolate {
    constructor(options?: ConstructorParameters<IsolatedVm['Isolate']>[0]) {
      kept.push(options?.onCatastrophicError);
      super(options);
    }
  }
  return Object.create(ivm, { Isolate: { value: KeepingIsolate } }) as IsolatedVm;
}

async function settleAndCollect(): Promise<void> {
  // isolated-vm frees handles on later turns of the event loop; give it several, each followed by a full GC.
  for (let round = 0; round < 10; round++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    collectGarbage();
  }
}

describe('isolate sandboxes after churn', () => {
  it('leaves no destroyed sandbox reachable through the catastrophic-error handler isolated-vm holds', async () => {
    const keptHandlers: unknown[] = [];
    const ivm = ivmKeepingErrorHandlers(await loadIsolatedVm(), keptHandlers);
    const spec = parseSandboxSpec({ backend: 'isolate', memoryMiB: 64 });
    const sandboxes: WeakRef<IsolateHandle>[] = [];
    const churnOne = async (index: number): Promise<void> => {
      const handle = new IsolateHandle(ivm, spec, { sandboxId: `sbx_retention_${index}`, ownerId: 'retention-test', expiresAtMs: Date.now() + 60_000 });
      const result = await handle.session.javascript({ code: `globalThis.kept = new Array(1000).fill(${index}); console.log('x'); kept.length` });
      expect(result.value).toBe('1000');
      await handle.destroy();
      sandboxes.push(new WeakRef(handle));
    };
    for (let index = 0; index < CHURNED; index++) await churnOne(index);
    await settleAndCollect();
    expect(keptHandlers).toHaveLength(CHURNED);
    // The last handle may still sit in a register of the loop's final frame; every earlier one must be gone.
    const retained = sandboxes.slice(0, -1).filter((reference) => reference.deref() !== undefined).length;
    expect(retained).toBe(0);
  });
});
