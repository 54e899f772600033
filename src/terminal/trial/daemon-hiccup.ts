/**
 * Which failures of a trial container's creation are the Docker daemon's own (a 5xx answer, a socket that reset or
 * refused) rather than the task's or the image's (404 no such image, an agent that never starts): the former are
 * worth another attempt in a fresh container, the latter would fail the same way again.
 */
import { dockerStatusCode } from '../../sandbox/docker/docker-errors.js';

const SOCKET_FAILURES: ReadonlySet<string> = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED']);

export function isDaemonHiccup(error: unknown): boolean {
  const status = dockerStatusCode(error);
  if (status !== undefined) return status >= 500;
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (typeof code === 'string' && SOCKET_FAILURES.has(code)) return true;
  // Node's HTTP client reports a connection the daemon closed mid-request as "socket hang up" (code ECONNRESET on most versions).
  return error instanceof Error && /socket hang up/i.test(error.message);
}
