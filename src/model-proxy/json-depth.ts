/**
 * How deep a request body nests, counted on its bytes before it is parsed. JSON.parse copes with any depth, but the
 * proxy's own walks (serialising tool arguments and schemas, comparing messages) recurse, and a sandbox can send a
 * body nested 20,000 deep: that must be a 400, not a stack overflow answered 500.
 */
import { badRequest, type ProxyError } from './proxy-error.js';

/** Deeper than any tool schema or content a CLI sends (a JSON schema 40 objects deep is about 85 levels). */
export const MAX_JSON_DEPTH = 128;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/** A 400 when `bytes` (JSON text) opens more than `maxDepth` objects and arrays inside one another, else null. */
export function tooDeeplyNested(bytes: Buffer, maxDepth = MAX_JSON_DEPTH): ProxyError | null {
  let depth = 0;
  for (let index = 0; index < bytes.length; index++) {
    const byte = bytes[index]!;
    if (byte === QUOTE) {
      // Most of a body is string content: jump to the closing quote natively instead of byte by byte.
      const end = closingQuote(bytes, index);
      if (end < 0) return null; // unterminated: the parse refuses it
      index = end;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (++depth > maxDepth) return badRequest(`the request body is nested more than ${maxDepth} levels deep`);
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) depth--;
  }
  return null;
}

/** The index of the quote that ends the string opened at `open` (one not escaped by an odd run of backslashes), or -1. */
function closingQuote(bytes: Buffer, open: number): number {
  for (let at = bytes.indexOf(QUOTE, open + 1); at >= 0; at = bytes.indexOf(QUOTE, at + 1)) {
    let backslashes = 0;
    while (bytes[at - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
  return -1;
}
