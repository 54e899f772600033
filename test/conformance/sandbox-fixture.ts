/** Shared plumbing for the conformance suite: one sandbox per describe block, capability gates, error checks. */
import { afterAll, beforeAll, expect, it, type TestFunction, type TestOptions } from 'vitest';
import { CorralError, type ErrorCode } from '../../src/core/errors.js';
import { newId } from '../../src/core/ids.js';
import { OWNER_ID } from '../../src/core/owner.js';
import type { SandboxHandle, SandboxProvider } from '../../src/sandbox/provider.js';
import type { Capability, SandboxSession } from '../../src/sandbox/session.js';
import { parseSandboxSpec, type SandboxSpec, type SandboxSpecInput } from '../../src/sandbox/spec.js';

export type MakeProvider = () => Promise<SandboxProvider>;

export interface SandboxFixture {
  readonly provider: SandboxProvider;
  readonly handle: SandboxHandle;
  readonly session: SandboxSession;
  readonly spec: SandboxSpec;
}

/** Env var every conformance sandbox gets through its spec, to check spec.env reaches commands. */
export const SPEC_ENV_NAME = 'CORRAL_CONFORMANCE_SPEC_VAR';

/** Registers beforeAll/afterAll that create one sandbox for the enclosing describe block and destroy it. */
export function useSandbox(makeProvider: MakeProvider, specInput: SandboxSpecInput): SandboxFixture {
  const spec = parseSandboxSpec({ ...specInput, env: { ...specInput.env, [SPEC_ENV_NAME]: 'from-spec' } });
  let provider: SandboxProvider | undefined;
  let handle: SandboxHandle | undefined;
  beforeAll(async () => {
    provider = await makeProvider();
    handle = await provider.create(spec, { sandboxId: newId('sbx'), ownerId: OWNER_ID, expiresAtMs: Date.now() + 30 * 60_000 });
  });
  afterAll(async () => {
    await handle?.destroy();
    await handle?.destroy(); // destroy is idempotent
    await provider?.close();
  });
  const need = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('sandbox fixture used before beforeAll created it');
    return value;
  };
  return {
    get provider() {
      return need(provider);
    },
    get handle() {
      return need(handle);
    },
    get session() {
      return need(handle).session;
    },
    spec,
  };
}

/**
 * Capabilities the backend under test declares (set by describeSandboxConformance while tests are registered).
 * Tests needing anything else are not registered at all, so nothing is skipped at run time.
 */
let declaredCapabilities: ReadonlySet<Capability> = new Set(['exec', 'python', 'files', 'javascript']);

export function declareCapabilities(capabilities: readonly Capability[]): void {
  declaredCapabilities = new Set(capabilities);
}

/** Registers the test only when the backend declares every capability it needs. */
export function itWithCapabilities(capabilities: readonly Capability[], name: string, ...rest: [TestFunction] | [TestOptions, TestFunction]): void {
  if (capabilities.every((capability) => declaredCapabilities.has(capability))) it(name, ...(rest as [TestOptions, TestFunction]));
}

/** Fails the running test when the session lacks a capability its backend declared. */
export function requireCapabilities(fixture: SandboxFixture, ...capabilities: Capability[]): void {
  const missing = capabilities.filter((capability) => !fixture.session.capabilities.has(capability));
  if (missing.length > 0) throw new Error(`backend declared but lacks ${missing.join(', ')}`);
}

export async function expectCorralError(promise: Promise<unknown>, code: ErrorCode): Promise<CorralError> {
  const outcome = await promise.then(
    (value: unknown) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if ('value' in outcome) throw new Error(`expected ${code}, but the call succeeded with ${JSON.stringify(outcome.value)?.slice(0, 300)}`);
  const error = outcome.error;
  expect(CorralError.isInstance(error) ? error.code : error).toBe(code);
  return error as CorralError;
}

/** Names (comm) of every process visible inside the sandbox, read from /proc so it works without ps. */
export async function processNames(session: SandboxSession): Promise<string[]> {
  const result = await session.exec({ command: 'cat /proc/[0-9]*/comm 2>/dev/null; true', timeoutMs: 30_000 });
  return result.stdout.split('\n').filter(Boolean);
}
