/**
 * Loads the native isolated-vm module on first use. It is an optionalDependency: the Docker and process backends
 * must work on hosts where it failed to compile or was never installed, so nothing imports it statically, and the
 * registry only reaches this folder through a dynamic import.
 */
import { CorralError } from '../../core/errors.js';

export type IsolatedVm = typeof import('isolated-vm');

/** The version this backend is written and tested against (the last line that supports Node 20). */
export const ISOLATED_VM_VERSION = '5.0.4';

let loading: Promise<IsolatedVm> | undefined;

/**
 * Resolves the module once per process; rejects (and retries next time) when it cannot load. A missing module
 * becomes SBX_ERR_UNAVAILABLE naming the install command, since npm drops an optional dependency silently.
 */
export function loadIsolatedVm(): Promise<IsolatedVm> {
  loading ??= import('isolated-vm').then(
    (imported) => imported.default,
    (error: unknown) => {
      loading = undefined;
      if (!isModuleMissing(error)) throw error;
      throw new CorralError(
        'SBX_ERR_UNAVAILABLE',
        `the isolate backend needs the optional native module isolated-vm, which is not installed: run \`npm install isolated-vm@${ISOLATED_VM_VERSION}\` (it compiles against Node 20)`,
        { cause: error },
      );
    },
  );
  return loading;
}

/** True only when isolated-vm itself is absent, not when it is present but its native binding fails to load. */
function isModuleMissing(error: unknown): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && typeof message === 'string' && message.includes("'isolated-vm'");
}
