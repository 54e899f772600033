/**
 * Where top-level fields of a JSON object sit in its bytes, found without parsing: the request cache needs the raw
 * bytes of fields a CLI resends unchanged to recognise them in later requests. Strings are skipped with the native
 * indexOf (tool descriptions and system prompts are long), so a scan of Claude Code's 124 KiB request is one short pass.
 */
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

export interface FieldSpan {
  /** The key's opening quote. */
  start: number;
  /** Just past the value (before the `,` or `}` that follows it). */
  end: number;
}

/** The span of each named field at depth 1 (the last one, as JSON.parse keeps the last of duplicate keys). */
export function topLevelFieldSpans(bytes: Buffer, names: readonly string[]): Map<string, FieldSpan> {
  const keys = names.map((name) => ({ name, bytes: Buffer.from(name) }));
  const spans = new Map<string, FieldSpan>();
  let depth = 0;
  let expectKey = false;
  let pending: { name: string; start: number } | null = null;
  const settle = (end: number) => {
    if (pending) spans.set(pending.name, { start: pending.start, end });
    pending = null;
  };
  for (let at = 0; at < bytes.length; at++) {
    const byte = bytes[at]!;
    if (byte === QUOTE) {
      const end = closingQuote(bytes, at + 1);
      if (end < 0) return new Map();
      if (depth === 1 && expectKey) {
        expectKey = false;
        const key = keys.find(
          (candidate) => end - at - 1 === candidate.bytes.length && bytes.compare(candidate.bytes, 0, candidate.bytes.length, at + 1, end) === 0,
        );
        if (key) pending = { name: key.name, start: at };
      }
      at = end;
    } else if (byte === 0x7b || byte === 0x5b) {
      depth++;
      if (depth === 1) expectKey = byte === 0x7b;
    } else if (byte === 0x7d || byte === 0x5d) {
      if (depth === 1) settle(at);
      depth--;
    } else if (byte === 0x2c && depth === 1) {
      settle(at);
      expectKey = true;
    }
  }
  return spans;
}

/** The index of the quote closing a string whose content starts at `from` (one preceded by an even run of backslashes). */
function closingQuote(bytes: Buffer, from: number): number {
  for (let at = bytes.indexOf(QUOTE, from); at >= 0; at = bytes.indexOf(QUOTE, at + 1)) {
    let backslashes = 0;
    while (bytes[at - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
  return -1;
}
