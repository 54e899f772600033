/**
 * Who is calling, for ownership of sandbox handles, sessions, episodes and tasks and for per-principal quotas: a
 * handle made by one principal is invisible to others. A principal must be something a client cannot mint, or
 * one client could multiply its quotas by inventing names (issue 20: 16 made-up bearer values filled the task
 * store). So:
 * - with a token configured, the principal is a digest of the presented token (never the token itself); only the
 *   accepted token gets past the guard, so all its holders are one principal;
 * - without a token, it is the remote address (every loopback address is one local client), and whatever bearer
 *   value a client sends is ignored. The address is chosen over one shared principal because a tokenless server
 *   bound beyond loopback then still keeps one host from using up another's quotas; clients behind one proxy share.
 */
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { bearerTokenOf } from './request-guards.js';

export type PrincipalResolver = (headers: IncomingHttpHeaders, remoteAddress?: string) => string;

/** The resolver for a server: the token digest when a token is configured, else the remote address. */
export function principalResolverFor(server: { token?: string | undefined }): PrincipalResolver {
  return server.token === undefined ? principalFromAddress : principalFromBearerToken;
}

/** For servers that check the token: its digest; a request without one (unguarded routes) falls back to the address. */
export const principalFromBearerToken: PrincipalResolver = (headers, remoteAddress) => {
  const token = bearerTokenOf(headers.authorization);
  if (token !== undefined) return `token:${createHash('sha256').update(token).digest('hex').slice(0, 16)}`;
  return principalFromAddress(headers, remoteAddress);
};

/** For tokenless servers: the remote address only, so no header can choose the principal. */
export const principalFromAddress: PrincipalResolver = (_headers, remoteAddress) =>
  remoteAddress === undefined ? 'anonymous' : `address:${normalizedAddress(remoteAddress)}`;

/**
 * One name per client host: IPv4-mapped IPv6 is unwrapped, and every loopback address is the same local
 * client (a client resolving "localhost" may reach 127.0.0.1 on one connection and ::1 on the next).
 */
export function normalizedAddress(remoteAddress: string | undefined): string {
  const address = unmappedAddress(remoteAddress);
  return address === '::1' || address.startsWith('127.') ? 'loopback' : address;
}

/** The address with an IPv4-mapped IPv6 prefix removed, and nothing else merged. */
export function unmappedAddress(remoteAddress: string | undefined): string {
  return (remoteAddress ?? 'unknown').replace(/^::ffff:/i, '');
}
