/**
 * Who is calling, for ownership of sandbox handles and sessions and for per-principal quotas: a handle made
 * by one principal is invisible to others. By default the principal is derived from the bearer token (a
 * digest, never the token itself), so the rule keeps holding when several tokens are accepted; without a
 * token it is the remote address, so one tokenless client cannot use up another's quotas.
 */
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { bearerTokenOf } from './request-guards.js';

export type PrincipalResolver = (headers: IncomingHttpHeaders, remoteAddress?: string) => string;

export const principalFromBearerToken: PrincipalResolver = (headers, remoteAddress) => {
  const token = bearerTokenOf(headers.authorization);
  if (token !== undefined) return `token:${createHash('sha256').update(token).digest('hex').slice(0, 16)}`;
  return remoteAddress === undefined ? 'anonymous' : `address:${normalizedAddress(remoteAddress)}`;
};

/**
 * One name per client host: IPv4-mapped IPv6 is unwrapped, and every loopback address is the same local
 * client (a client resolving "localhost" may reach 127.0.0.1 on one connection and ::1 on the next).
 */
export function normalizedAddress(remoteAddress: string | undefined): string {
  const address = (remoteAddress ?? 'unknown').replace(/^::ffff:/i, '');
  return address === '::1' || address.startsWith('127.') ? 'loopback' : address;
}
