/** Reading dockerode failures: HTTP status from the daemon, or a socket error before any answer. */

export function dockerStatusCode(error: unknown): number | undefined {
  const statusCode = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof statusCode === 'number' ? statusCode : undefined;
}

/** 404 (already gone) and 409 (removal already in progress) both mean "someone else finished the job". */
export function isGoneOrGoing(error: unknown): boolean {
  const statusCode = dockerStatusCode(error);
  return statusCode === 404 || statusCode === 409;
}

export function isNoSuchImage(error: unknown): boolean {
  return dockerStatusCode(error) === 404 && /no such image/i.test(errorMessage(error));
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Turns "cannot reach the daemon" socket errors into a sentence that says what to do; undefined for others. */
export function describeDaemonError(endpoint: string, error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  switch (code) {
    case 'ENOENT':
      return `no Docker daemon socket at ${endpoint}: start dockerd, or point DOCKER_HOST at its socket`;
    case 'ECONNREFUSED':
      return `the Docker daemon at ${endpoint} refused the connection: dockerd is not running (start it)`;
    case 'EACCES':
    case 'EPERM':
      return `permission denied on ${endpoint}: run as root or add this user to the 'docker' group`;
    case 'ENOTFOUND':
    case 'EHOSTUNREACH':
    case 'ETIMEDOUT':
      return `cannot reach the Docker daemon at ${endpoint} (${code}): check DOCKER_HOST`;
    default:
      return undefined;
  }
}
