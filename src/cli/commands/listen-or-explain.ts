/**
 * `corral serve`'s listen: an address that cannot be bound becomes one CorralError line naming the port and
 * the flag to change (the CLI prints it and exits 2), not a Node stack. Sandboxes already warming are
 * released first, so a refused start leaves nothing behind.
 */
import type { FastifyInstance } from 'fastify';
import { CorralError } from '../../core/errors.js';

export async function listenOrExplain(app: FastifyInstance, server: { host: string; port: number }, releaseRuntime: () => Promise<void>): Promise<string> {
  try {
    return await app.listen({ host: server.host, port: server.port });
  } catch (error) {
    await app.close().catch(() => undefined);
    await releaseRuntime().catch(() => undefined);
    const explanation = explainListenError(error, server);
    if (!explanation) throw error;
    throw new CorralError('SERVE_ERR_LISTEN_FAILED', explanation, { cause: error, details: { host: server.host, port: server.port } });
  }
}

function explainListenError(error: unknown, { host, port }: { host: string; port: number }): string | undefined {
  const where = `${host || 'all interfaces'}:${port}`;
  switch ((error as NodeJS.ErrnoException).code) {
    case 'EADDRINUSE':
      return `port ${port} is already in use (on ${where}): stop the process holding it, or pick another port with --port <port> (CORRAL_PORT)`;
    case 'EACCES':
      return `not permitted to listen on port ${port} (on ${where}): ports below 1024 need privileges; pick another with --port <port> (CORRAL_PORT)`;
    case 'EADDRNOTAVAIL':
      return `cannot listen on ${where}: ${host} is not an address of this machine; pick another with --host <host> (CORRAL_HOST)`;
    default:
      return undefined;
  }
}
