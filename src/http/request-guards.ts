/**
 * The checks every request passes before any route runs, shared by the fastify hook and the WebSocket
 * upgrade (which fastify hooks never see): Host and Origin against DNS rebinding and cross-site use (403),
 * then the bearer token when one is configured (401).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { localhostAllowedHostnames, localhostAllowedOrigins, validateHostHeader, validateOriginHeader } from '@modelcontextprotocol/server';
import type { CorralConfig } from '../config/load-config.js';

export type ServerConfig = CorralConfig['server'];

export interface GuardRefusal {
  status: 401 | 403;
  message: string;
}

const WILDCARD_BINDS = new Set(['0.0.0.0', '::', '']);

export function bindsAllInterfaces(server: ServerConfig): boolean {
  return WILDCARD_BINDS.has(server.host);
}

/** Hostnames accepted in Host; undefined when binding all interfaces with no allow-list (nothing sensible to check against). */
export function allowedHostnames(server: ServerConfig): string[] | undefined {
  if (bindsAllInterfaces(server) && server.allowedHosts.length === 0) return undefined;
  const bindHost = bindsAllInterfaces(server) ? [] : [bracketIpv6(server.host)];
  return [...new Set([...localhostAllowedHostnames(), ...bindHost, ...server.allowedHosts.map(hostnameOf)])];
}

/** Origin hostnames accepted; requests without an Origin header (every non-browser client) always pass. */
export function allowedOriginHostnames(server: ServerConfig): string[] {
  const bindHost = bindsAllInterfaces(server) ? [] : [bracketIpv6(server.host)];
  return [...new Set([...localhostAllowedOrigins(), ...bindHost, ...server.allowedOrigins.map(hostnameOf)])];
}

export function checkHostAndOrigin(headers: IncomingHttpHeaders, hosts: string[] | undefined, origins: string[]): GuardRefusal | undefined {
  if (hosts) {
    const host = validateHostHeader(headers.host, hosts);
    if (!host.ok) return { status: 403, message: `Forbidden: ${host.message}` };
  }
  const origin = validateOriginHeader(headers.origin, origins);
  if (!origin.ok) return { status: 403, message: `Forbidden: ${origin.message}` };
  return undefined;
}

export function checkBearerToken(headers: IncomingHttpHeaders, token: string | undefined): GuardRefusal | undefined {
  if (token === undefined) return undefined;
  const presented = bearerTokenOf(headers.authorization);
  if (presented === undefined) return { status: 401, message: 'Unauthorized: send Authorization: Bearer <token>' };
  // Compare digests so the comparison is constant-time whatever the lengths.
  if (!timingSafeEqual(digest(presented), digest(token))) return { status: 401, message: 'Unauthorized: invalid token' };
  return undefined;
}

export function bearerTokenOf(authorization: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  return match?.[1];
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function bracketIpv6(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** Accepts "example.com", "example.com:8080" or "https://example.com" and returns the hostname. */
function hostnameOf(value: string): string {
  try {
    return new URL(value.includes('://') ? value : `http://${value}`).hostname;
  } catch {
    return value;
  }
}
