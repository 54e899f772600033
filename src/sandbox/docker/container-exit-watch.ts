import type { IncomingMessage } from 'node:http';
import type Docker from 'dockerode';

export interface ContainerExit {
  /** The container's exit status (137 = SIGKILL: OOM or an external kill), or null when unknown. */
  statusCode: number | null;
}

export interface ContainerExitWatch {
  /** Resolves once the daemon has registered the wait, so an exit right after start is not missed. */
  readonly registered: Promise<void>;
  /** Resolves when the container exits; never rejects ({statusCode: null} when the watch itself broke). */
  readonly exited: Promise<ContainerExit>;
}

/**
 * Long-polls POST /containers/{id}/wait?condition=next-exit. Dialled as a stream because the daemon
 * (API >= 1.30) sends headers as soon as the wait is registered and the body only at exit: the headers tell
 * us it is safe to start. The exit code is how we tell a kill (137) from the agent quitting on its own,
 * since AutoRemove leaves nothing to inspect afterwards.
 */
export function watchContainerExit(docker: Docker, containerId: string): ContainerExitWatch {
  let markRegistered!: () => void;
  const registered = new Promise<void>((resolve) => (markRegistered = resolve));
  const exited = new Promise<ContainerExit>((resolve) => {
    docker.modem.dial(
      {
        path: `/containers/${containerId}/wait?`,
        method: 'POST',
        isStream: true,
        statusCodes: { 200: true, 404: 'no such container', 500: 'server error' },
        options: { condition: 'next-exit' },
      },
      (error: unknown, response: unknown) => {
        markRegistered();
        if (error || !response) return resolve({ statusCode: null });
        const stream = response as IncomingMessage;
        let body = '';
        stream.setEncoding('utf8');
        stream.on('data', (chunk: string) => (body += chunk));
        stream.on('error', () => resolve({ statusCode: null }));
        stream.on('end', () => resolve({ statusCode: parseStatusCode(body) }));
        stream.on('close', () => resolve({ statusCode: parseStatusCode(body) }));
      },
    );
  });
  return { registered, exited };
}

function parseStatusCode(body: string): number | null {
  try {
    const statusCode = (JSON.parse(body) as { StatusCode?: unknown }).StatusCode;
    return typeof statusCode === 'number' ? statusCode : null;
  } catch {
    return null;
  }
}
