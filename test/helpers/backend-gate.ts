import type { BackendName } from '../../src/sandbox/spec.js';
import { loadProvider } from '../../src/sandbox/registry.js';

/**
 * Decides whether a backend's tests run. On a developer machine without the backend they skip with a loud
 * message; under CI=true a missing backend throws, so nothing skips silently in CI.
 */
export async function backendAvailable(name: BackendName): Promise<boolean> {
  const provider = await loadProvider(name);
  try {
    const availability = await provider.available();
    if (availability.ok) return true;
    const message = `[corral tests] backend '${name}' unavailable: ${availability.reason ?? 'unknown reason'}`;
    if (process.env.CI) throw new Error(`${message} (CI=true: refusing to skip)`);
    console.warn(`${message}; SKIPPING its tests`);
    return false;
  } finally {
    await provider.close();
  }
}
