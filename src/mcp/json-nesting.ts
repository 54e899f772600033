/**
 * A bound on how deeply a request's JSON may nest, checked on the raw text before anything parses or walks it.
 * JSON.parse itself copes with a million levels, but what runs after it (schema checks, the SDK's envelope and
 * _meta handling, JSON.stringify of anything echoed) recurses or spends seconds of the one event loop on such a
 * value (issue 21: 1,000,000 levels in params._meta). No MCP message or /v1 body needs more than a few dozen.
 */
import { CorralError } from '../core/errors.js';
import { MAX_JSON_NESTING_DEPTH } from '../core/json-nesting.js';

export { exceedsJsonNesting, MAX_JSON_NESTING_DEPTH } from '../core/json-nesting.js';

/** HTTP_ERR_JSON_TOO_DEEP, with the limit in details. */
export function jsonTooDeepError(maxDepth = MAX_JSON_NESTING_DEPTH): CorralError {
  return new CorralError('HTTP_ERR_JSON_TOO_DEEP', `Invalid Request: the JSON nests deeper than ${maxDepth} levels, the most this server reads`, {
    details: { limit: maxDepth },
  });
}
