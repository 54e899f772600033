/**
 * Backend name -> provider, loaded lazily by dynamic import so that the Docker path works without the native
 * isolated-vm module and vice versa. The only place that may import concrete backends.
 */
import type { SandboxProvider } from './provider.js';
import type { BackendName } from './spec.js';

export interface BackendOptions {
  /** Docker daemon socket path (docker backend). */
  dockerSocketPath?: string;
  /** uid (and gid) process sandboxes run as (process backend; config sandbox.sandboxUid). */
  sandboxUid?: number;
}

export async function loadProvider(name: BackendName, options: BackendOptions = {}): Promise<SandboxProvider> {
  switch (name) {
    case 'docker': {
      const { DockerProvider } = await import('./docker/docker-provider.js');
      return new DockerProvider(options);
    }
    case 'process': {
      const { ProcessProvider } = await import('./process/process-provider.js');
      return new ProcessProvider(options.sandboxUid !== undefined ? { sandboxUid: options.sandboxUid } : {});
    }
    case 'isolate': {
      const { IsolateProvider } = await import('./isolate/isolate-provider.js');
      return new IsolateProvider();
    }
  }
}
