import { CorralError } from '../../core/errors.js';
import { loadProvider } from '../../sandbox/registry.js';

/** Trials run only in Docker: a daemon that does not answer refuses the run before it starts. */
export async function requireDockerDaemon(what = 'corral eval terminal runs its trials'): Promise<void> {
  const provider = await loadProvider('docker');
  try {
    const availability = await provider.available();
    if (!availability.ok)
      throw new CorralError('SBX_ERR_UNAVAILABLE', `${what} in Docker: ${availability.reason}`, {
        details: { ...availability.detail },
      });
  } finally {
    await provider.close();
  }
}
