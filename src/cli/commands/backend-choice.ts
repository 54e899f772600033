/**
 * Which sandbox backend `corral serve`, `corral mcp` and `corral eval` use, decided once at startup, and the
 * probe behind /readyz. A backend asked for by name that cannot work here is refused at startup
 * (SBX_ERR_UNAVAILABLE, which the CLI prints as one line) instead of failing every tool call later; 'auto'
 * prefers docker and falls back to process, saying why on stderr.
 */
import type { CorralConfig } from '../../config/load-config.js';
import { CorralError } from '../../core/errors.js';
import type { Readiness } from '../../http/readiness-route.js';
import { openDockerConnection } from '../../sandbox/docker/docker-connection.js';
import type { Availability, SandboxProvider } from '../../sandbox/provider.js';
import { loadProvider } from '../../sandbox/registry.js';

export type ServingBackend = 'docker' | 'process';

export async function chooseBackend(config: CorralConfig, log: (line: string) => void): Promise<ServingBackend> {
  const wanted = config.sandbox.backend;
  if (wanted !== 'auto') {
    const availability = await withProbe(config, wanted, (probe) => probe.check());
    if (!availability.ok)
      throw new CorralError('SBX_ERR_UNAVAILABLE', `--backend ${wanted}: ${availability.reason}; ${otherChoices(wanted)}`, { details: { backend: wanted } });
    return wanted;
  }
  const docker = await withProbe(config, 'docker', (probe) => probe.check());
  if (docker.ok) {
    log('backend auto: docker');
    return 'docker';
  }
  log(`backend auto: process (docker unavailable: ${docker.reason})`);
  return 'process';
}

const otherChoices = (backend: ServingBackend) =>
  backend === 'docker' ? 'or use --backend process (bubblewrap sandboxes) or --backend auto' : 'or use --backend docker or --backend auto';

/** Can sandboxes of this backend be created right now? Docker also needs the image (these machines cannot pull). */
export interface BackendProbe {
  check(): Promise<Availability>;
  readiness(): Promise<Readiness>;
  close(): Promise<void>;
}

export async function openBackendProbe(config: CorralConfig, backend: ServingBackend): Promise<BackendProbe> {
  const socketPath = config.sandbox.dockerSocketPath;
  let provider: SandboxProvider | undefined;
  let loadFailure: string | undefined;
  try {
    provider = await loadProvider(backend, { ...(socketPath ? { dockerSocketPath: socketPath } : {}), sandboxUid: config.sandbox.sandboxUid });
  } catch (error) {
    loadFailure = `cannot load the ${backend} backend: ${(error as Error).message}`;
  }
  const check = async (): Promise<Availability> => {
    if (!provider) return { ok: false, reason: loadFailure ?? 'no provider' };
    const availability = await provider.available();
    if (!availability.ok || backend !== 'docker') return availability;
    return (await imagePresent(socketPath, config.sandbox.image))
      ? availability
      : { ok: false, reason: `image ${config.sandbox.image} is not built: run corral images build --offline (or pick another with --image / CORRAL_IMAGE)` };
  };
  return {
    check,
    async readiness() {
      const availability = await check();
      return availability.ok ? { backend, ready: true } : { backend, ready: false, reason: availability.reason ?? 'unavailable' };
    },
    close: async () => provider?.close(),
  };
}

async function withProbe<T>(config: CorralConfig, backend: ServingBackend, use: (probe: BackendProbe) => Promise<T>): Promise<T> {
  const probe = await openBackendProbe(config, backend);
  try {
    return await use(probe);
  } finally {
    await probe.close().catch(() => undefined);
  }
}

async function imagePresent(socketPath: string | undefined, image: string): Promise<boolean> {
  const connection = openDockerConnection(socketPath ? { socketPath } : {});
  try {
    return await connection.docker
      .getImage(image)
      .inspect()
      .then(
        () => true,
        () => false,
      );
  } finally {
    connection.close();
  }
}
