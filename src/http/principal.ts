/**
 * Who is calling, for ownership of sandbox handles: a handle made by one principal is invisible to others.
 * By default the principal is derived from the bearer token (a digest, never the token itself), so the
 * rule keeps holding when several tokens are accepted; without auth every caller is 'anonymous'.
 */
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { bearerTokenOf } from './request-guards.js';

export type PrincipalResolver = (headers: IncomingHttpHeaders) => string;

export const principalFromBearerToken: PrincipalResolver = (headers) => {
  const token = bearerTokenOf(headers.authorization);
  return token === undefined ? 'anonymous' : `token:${createHash('sha256').update(token).digest('hex').slice(0, 16)}`;
};
