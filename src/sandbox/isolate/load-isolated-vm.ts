/**
 * Loads the native isolated-vm module on first use. It is an optional dependency in spirit: the Docker and process
 * backends must work on hosts where it failed to compile, so nothing imports it statically, and the registry only
 * reaches this folder through a dynamic import.
 */
export type IsolatedVm = typeof import('isolated-vm');

let loading: Promise<IsolatedVm> | undefined;

/** Resolves the module once per process; rejects (and retries next time) when the native binding cannot load. */
export function loadIsolatedVm(): Promise<IsolatedVm> {
  loading ??= import('isolated-vm').then(
    (imported) => imported.default,
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}
