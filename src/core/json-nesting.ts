/**
 * How deeply JSON text nests, counted on the raw text before anything parses it. JSON.parse copes with any depth,
 * but what runs after it (schema checks, the SDK's envelope handling, the proxy's walks over tool arguments,
 * JSON.stringify of anything echoed) recurses or spends seconds of the one event loop on a value nested a million
 * deep. The HTTP server, the WebSocket transport and the model proxy all bound requests with this one count.
 */

/** Objects and arrays inside one another; no MCP message, /v1 body or model request needs more than a few dozen. */
export const MAX_JSON_NESTING_DEPTH = 128;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;

/**
 * True when `json` (text or its UTF-8 bytes; anything that will fail to parse anyway is fine) opens more than
 * `maxDepth` objects and arrays inside one another. Brackets inside strings do not count.
 */
export function exceedsJsonNesting(json: string | Buffer, maxDepth = MAX_JSON_NESTING_DEPTH): boolean {
  const codeAt = typeof json === 'string' ? (index: number) => json.charCodeAt(index) : (index: number) => json[index]!;
  let depth = 0;
  for (let index = 0; index < json.length; index++) {
    const code = codeAt(index);
    if (code === QUOTE) {
      // Most of a body is string content: jump to the closing quote natively instead of character by character.
      index = closingQuote(json, codeAt, index);
      if (index < 0) return false; // unterminated: the parse refuses it
    } else if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      if (++depth > maxDepth) return true;
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) depth--;
  }
  return false;
}

/** The index of the quote that ends the string opened at `open` (one not escaped by an odd run of backslashes), or -1. */
function closingQuote(json: string | Buffer, codeAt: (index: number) => number, open: number): number {
  for (let at = json.indexOf('"', open + 1); at >= 0; at = json.indexOf('"', at + 1)) {
    let backslashes = 0;
    while (at - 1 - backslashes > open && codeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
  return -1;
}
