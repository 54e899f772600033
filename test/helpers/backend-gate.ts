import type { BackendName } from '../../src/sandbox/spec.js';
import { loadProvider } from '../../src/sandbox/registry.js';
import { gate } from './test-gates.js';

/**
 * Decides whether a backend's tests run, by the rule in test-gates.ts: skip loudly on a developer machine,
 * throw under CI=true.
 */
export async function backendAvailable(name: BackendName): Promise<boolean> {
  const provider = await loadProvider(name);
  try {
    const availability = await provider.available();
    return gate(`backend '${name}'`, availability.ok ? null : (availability.reason ?? 'unknown reason'));
  } finally {
    await provider.close();
  }
}
