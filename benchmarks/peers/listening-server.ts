import type { AddressInfo, Server } from 'node:net';

/** A server the bench started on 127.0.0.1 port 0. */
export interface ListeningServer {
  /** e.g. http://127.0.0.1:41234 */
  origin: string;
  port: number;
  close(): Promise<void>;
}

export function originOf(server: Server): { origin: string; port: number } {
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, port };
}
