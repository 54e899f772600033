/**
 * A bound on how deeply a request's JSON may nest, checked on the raw text before anything parses or walks it.
 * JSON.parse itself copes with a million levels, but what runs after it (schema checks, the SDK's envelope and
 * _meta handling, JSON.stringify of anything echoed) recurses or spends seconds of the one event loop on such a
 * value (issue 21: 1,000,000 levels in params._meta). No MCP message or /v1 body needs more than a few dozen.
 */
import { CorralError } from '../core/errors.js';

/** Objects and arrays inside one another, the message's own levels included. */
export const MAX_JSON_NESTING_DEPTH = 128;

const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** True when `text` (JSON, or something that will fail to parse anyway) opens more than `maxDepth` levels at once. */
export function exceedsJsonNesting(text: string, maxDepth = MAX_JSON_NESTING_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === BACKSLASH) index++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) inString = true;
    else if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      if (++depth > maxDepth) return true;
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) depth--;
  }
  return false;
}

/** HTTP_ERR_JSON_TOO_DEEP, with the limit in details. */
export function jsonTooDeepError(maxDepth = MAX_JSON_NESTING_DEPTH): CorralError {
  return new CorralError('HTTP_ERR_JSON_TOO_DEEP', `Invalid Request: the JSON nests deeper than ${maxDepth} levels, the most this server reads`, {
    details: { limit: maxDepth },
  });
}
