/**
 * The shared sandbox conformance suite against the docker backend. Skips loudly without a daemon (throws
 * under CI=true). Builds corral/python offline first when no image with the current content hash exists.
 */
import { beforeAll, describe } from 'vitest';
import { DockerProvider } from '../../src/sandbox/docker/docker-provider.js';
import { buildImages } from '../../src/sandbox/docker/image-builder.js';
import { namespaceCopyUnavailable } from '../../src/sandbox/file-system-copy/namespace-tar.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { describeSandboxConformance } from './sandbox-conformance.js';

const dockerAvailable = await backendAvailable('docker');

describe.skipIf(!dockerAvailable)('docker backend', () => {
  beforeAll(async () => {
    await buildImages({ offline: true, log: (line) => console.log(`[images] ${line}`) });
  }, 900_000);

  // Fork needs root and the daemon on this host (the copy runs in the container's namespace); else the typed refusal.
  const forks = namespaceCopyUnavailable() === null;
  describeSandboxConformance('docker', async () => new DockerProvider(), { backend: 'docker', memoryMiB: 256, workspaceMiB: 64 }, [
    'exec',
    'python',
    'files',
    ...(forks ? (['fork'] as const) : []),
  ]);
});
