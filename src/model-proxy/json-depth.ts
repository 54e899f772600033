/**
 * A sandbox can send a body nested 20,000 deep; the proxy's own walks (serialising tool arguments and schemas,
 * comparing messages) recurse, so that must be a 400, not a stack overflow answered 500. The count is core's.
 */
import { exceedsJsonNesting, MAX_JSON_NESTING_DEPTH } from '../core/json-nesting.js';
import { badRequest, type ProxyError } from './proxy-error.js';

/** Deeper than any tool schema or content a CLI sends (a JSON schema 40 objects deep is about 85 levels). */
export const MAX_JSON_DEPTH = MAX_JSON_NESTING_DEPTH;

/** A 400 when `bytes` (JSON text) opens more than `maxDepth` objects and arrays inside one another, else null. */
export function tooDeeplyNested(bytes: Buffer, maxDepth = MAX_JSON_DEPTH): ProxyError | null {
  return exceedsJsonNesting(bytes, maxDepth) ? badRequest(`the request body is nested more than ${maxDepth} levels deep`) : null;
}
