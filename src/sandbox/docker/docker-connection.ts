import { Agent } from 'node:http';
import Docker from 'dockerode';

export const DEFAULT_DOCKER_SOCKET_PATH = '/var/run/docker.sock';

/** Where the daemon listens: an explicit path, else a unix:// DOCKER_HOST, else the default socket. */
export function resolveDockerSocketPath(explicitPath?: string): string {
  if (explicitPath) return explicitPath;
  const dockerHost = process.env.DOCKER_HOST;
  if (dockerHost?.startsWith('unix://')) return dockerHost.slice('unix://'.length);
  return DEFAULT_DOCKER_SOCKET_PATH;
}

export interface DockerConnection {
  readonly docker: Docker;
  readonly socketPath: string;
  /** Closes pooled sockets; hijacked attach streams already left the pool and stay open. */
  close(): void;
}

/**
 * One dockerode client per provider, over one keep-alive agent: every create/start/remove then reuses a
 * warm unix-socket connection instead of paying a connect per request. maxSockets stays unbounded because
 * each live sandbox holds one long-poll `wait` request; a cap would queue creates behind them forever.
 */
export function openDockerConnection(options: { socketPath?: string } = {}): DockerConnection {
  const socketPath = resolveDockerSocketPath(options.socketPath);
  const agent = new Agent({ keepAlive: true, keepAliveMsecs: 10_000, maxFreeSockets: 16 });
  const docker = new Docker({ socketPath, agent } as Docker.DockerOptions);
  return {
    docker,
    socketPath,
    close: () => agent.destroy(),
  };
}
