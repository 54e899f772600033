import { randomBytes } from 'node:crypto';

/** Short random ids with a readable prefix, e.g. `sbx_3f9a1c0d2e7b`. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}
