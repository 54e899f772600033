import { Agent } from 'node:http';
import { createRequire } from 'node:module';
import type Docker from 'dockerode';

/**
 * dockerode is required on the first connection, not imported with this module: with docker-modem's ssh and protobuf
 * dependencies it is the heaviest load of a start-up, and a run on the process or isolate backend never needs it.
 */
function dockerode(): typeof Docker {
  return createRequire(import.meta.url)('dockerode') as typeof Docker;
}

export const DEFAULT_DOCKER_SOCKET_PATH = '/var/run/docker.sock';

/**
 * The daemon's unix socket: an explicit path, else a unix:// DOCKER_HOST, else the default socket.
 * Undefined when DOCKER_HOST names a remote daemon (tcp://, ssh://), which docker-modem reaches itself.
 */
export function resolveDockerSocketPath(explicitPath?: string): string | undefined {
  if (explicitPath) return explicitPath;
  const dockerHost = process.env.DOCKER_HOST;
  if (!dockerHost) return DEFAULT_DOCKER_SOCKET_PATH;
  if (dockerHost.startsWith('unix://')) return dockerHost.slice('unix://'.length);
  return undefined;
}

export interface DockerConnection {
  readonly docker: Docker;
  /** The unix socket in use, or undefined for a remote DOCKER_HOST. */
  readonly socketPath: string | undefined;
  /** Where the daemon is, for messages: the socket path or DOCKER_HOST. */
  readonly endpoint: string;
  /** Closes pooled sockets; hijacked attach streams already left the pool and stay open. */
  close(): void;
}

/**
 * One dockerode client per provider, over one keep-alive agent: every create/start/remove then reuses a
 * warm unix-socket connection instead of paying a connect per request. maxSockets stays unbounded because
 * each live sandbox holds one long-poll `wait` request; a cap would queue creates behind them forever.
 * `timeout` is forced off: DOCKER_CLIENT_TIMEOUT would otherwise cut idle attach streams, killing sandboxes.
 */
export function openDockerConnection(options: { socketPath?: string } = {}): DockerConnection {
  const socketPath = resolveDockerSocketPath(options.socketPath);
  if (socketPath === undefined) {
    const Dockerode = dockerode();
    const docker = new Dockerode({ timeout: undefined });
    return { docker, socketPath, endpoint: process.env.DOCKER_HOST ?? 'DOCKER_HOST', close: () => undefined };
  }
  const agent = new Agent({ keepAlive: true, keepAliveMsecs: 10_000, maxFreeSockets: 16 });
  const Dockerode = dockerode();
  const docker = new Dockerode({ socketPath, agent, timeout: undefined } as Docker.DockerOptions);
  return { docker, socketPath, endpoint: socketPath, close: () => agent.destroy() };
}
