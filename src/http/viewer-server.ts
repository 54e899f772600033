/**
 * `corral view`'s own app: the viewer at the root, with the MCP server's Host and Origin checks (against DNS
 * rebinding and cross-site reads) on every request whatever it binds, and a bearer token on api/ when one is given
 * (`corral view` makes one up when it binds beyond loopback). The page itself holds no data and loads without the
 * token, which it reads from its #token= fragment, as under `corral serve`. Never listens.
 */
import { hostname, networkInterfaces } from 'node:os';
import Fastify, { type FastifyInstance } from 'fastify';
import { localhostAllowedHostnames } from '@modelcontextprotocol/server';
import { allowedHostnames, allowedOriginHostnames, bindsAllInterfaces, checkBearerToken, checkHostAndOrigin, type ServerConfig } from './request-guards.js';
import { viewerRoutes } from '../viewer/viewer-routes.js';

export interface ViewerServerOptions {
  root: string;
  /** The interface it binds: its name is accepted in Host beside localhost's. */
  host: string;
  /** Required as `Authorization: Bearer` on api/ when set. */
  token?: string;
  /** More names accepted in Host and Origin (a DNS name or proxy the viewer is reached through). */
  allowedHosts?: string[];
  tailIntervalMs?: number;
}

export function buildViewerServer(options: ViewerServerOptions): FastifyInstance {
  const app = Fastify({ logger: false, forceCloseConnections: 'idle' });
  const guard = { host: options.host, allowedHosts: options.allowedHosts ?? [], allowedOrigins: options.allowedHosts ?? [] } as unknown as ServerConfig;
  // Bound to every interface there is no single name to expect: accept this machine's own names and addresses.
  const machine = bindsAllInterfaces(guard) ? machineHostnames() : [];
  const hosts = [...new Set([...(allowedHostnames(guard) ?? localhostAllowedHostnames()), ...machine])];
  const origins = [...new Set([...allowedOriginHostnames(guard), ...machine])];
  app.addHook('onRequest', async (request, reply) => {
    const refusal = checkHostAndOrigin(request.headers, hosts, origins) ?? (isPage(request.url) ? undefined : checkBearerToken(request.headers, options.token));
    if (refusal)
      return reply.code(refusal.status).send({ error: { code: refusal.status === 401 ? 'HTTP_UNAUTHORIZED' : 'HTTP_FORBIDDEN', message: refusal.message } });
  });
  void app.register(viewerRoutes, { root: options.root, ...(options.tailIntervalMs ? { tailIntervalMs: options.tailIntervalMs } : {}) });
  return app;
}

/** The page and its assets (no data in them); everything else, the API above all, is behind the token. */
const isPage = (url: string) => {
  const path = url.split('?')[0];
  return path === '/' || path === '/assets/app.js' || path === '/assets/viewer.css' || path === '/assets/uplot.css';
};

/** This machine's host name and every interface address, spelled as a URL's hostname spells them. */
export function machineHostnames(): string[] {
  const addresses = Object.values(networkInterfaces()).flatMap((entries) => (entries ?? []).map((entry) => entry.address));
  const names: string[] = [];
  for (const name of [hostname(), ...addresses]) {
    try {
      names.push(new URL(`http://${name.includes(':') ? `[${name}]` : name}`).hostname);
    } catch {
      // A scoped IPv6 address (fe80::1%eth0) is no URL hostname; nobody reaches the viewer by it.
    }
  }
  return names;
}
