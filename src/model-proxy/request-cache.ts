/**
 * CLIs resend the same tool list and system prompt on every call (Claude Code: 87 KB of tools and 29 KB of system
 * blocks in a 124 KiB request), and decoding, parsing, translating and re-serialising them was most of the proxy's
 * time per call. Each rollout keeps the last few such fields it saw: their raw bytes and their parsed value (tools:
 * their translation and its upstream serialisation). A request that holds those exact bytes has each replaced by a
 * random number before it is parsed; the parse proves the bytes were that top-level field (its number comes back
 * there), and the cached value stands in. Anything else is parsed whole, as before.
 */
import type { Dialect, DialectName, ToolTranslation } from './dialect.js';
import { asRecord, type JsonRecord } from './json-values.js';
import { tooDeeplyNested } from './json-depth.js';
import { topLevelFieldSpans } from './json-field-span.js';
import { ProxyError } from './proxy-error.js';

/** Values of each field a rollout alternates between (a main agent and its subagents). */
const ENTRIES_PER_FIELD = 4;

export interface ParsedRequest {
  body: unknown;
  tools: ToolTranslation;
  /** `,"tools":[...]` as sent upstream, to append to the request's other fields; null without tools. */
  toolsJson: Buffer | null;
}

interface Entry {
  dialect: DialectName;
  field: string;
  /** The `"field": value` bytes exactly as the CLI sent them. */
  raw: Buffer;
  /** The parsed value, shared by every request that sent these bytes (never mutated). */
  value: unknown;
  /** For `tools`. */
  tools?: ToolTranslation;
  toolsJson?: Buffer | null;
}

/** A number no client can predict, per field: where the parse puts it is where the cached bytes were. */
const standIns = new Map<string, number>();
const standIn = (field: string) => {
  let value = standIns.get(field);
  if (value === undefined) standIns.set(field, (value = Math.random()));
  return value;
};

export class RequestCache {
  private readonly entries: Entry[] = [];

  /** Parses a request body with its tools translated, reusing cached fields. Throws ProxyError 400 on bad JSON. */
  read(bytes: Buffer, dialect: Dialect): ParsedRequest {
    const fields = ['tools', ...dialect.stableFields];
    const hits = this.findHits(bytes, dialect.name, fields);
    if (hits.length > 0) {
      const body = this.parseWithStandIns(bytes, hits);
      if (body) {
        let toolsEntry: Entry | undefined;
        for (const hit of hits) {
          body[hit.entry.field] = hit.entry.value;
          if (hit.entry.field === 'tools') toolsEntry = hit.entry;
          this.promote(hit.entry);
        }
        if (toolsEntry) return { body, tools: toolsEntry.tools!, toolsJson: toolsEntry.toolsJson! };
        return { body, ...translatedTools(dialect, body['tools']) };
      }
    }
    const body = parseJsonBody(bytes);
    const record = asRecord(body);
    const parsed = { body, ...translatedTools(dialect, record?.['tools']) };
    if (!record) return parsed;
    const worth = fields.filter((field) =>
      field === 'tools' ? Array.isArray(record[field]) && (record[field] as unknown[]).length > 0 : record[field] !== undefined,
    );
    if (worth.length === 0) return parsed;
    for (const [field, span] of topLevelFieldSpans(bytes, worth)) {
      // A copy: the request's own buffer is not kept alive by the cache.
      const raw = Buffer.from(bytes.subarray(span.start, span.end));
      this.remember(
        field === 'tools'
          ? { dialect: dialect.name, field, raw, value: record[field], tools: parsed.tools, toolsJson: parsed.toolsJson }
          : { dialect: dialect.name, field, raw, value: record[field] },
      );
    }
    return parsed;
  }

  private findHits(bytes: Buffer, dialect: DialectName, fields: string[]): { entry: Entry; at: number }[] {
    const hits: { entry: Entry; at: number }[] = [];
    for (const field of fields) {
      for (const entry of this.entries) {
        if (entry.dialect !== dialect || entry.field !== field) continue;
        const at = occurrence(bytes, entry.raw);
        if (at < 0) continue;
        hits.push({ entry, at });
        break;
      }
    }
    hits.sort((left, right) => left.at - right.at);
    // Overlapping spans cannot both be top-level fields: keep the first.
    return hits.filter((hit, index) => index === 0 || hit.at >= hits[index - 1]!.at + hits[index - 1]!.entry.raw.length);
  }

  /** The body parsed with each hit replaced by its stand-in, or null when any stand-in is not where its field is. */
  private parseWithStandIns(bytes: Buffer, hits: { entry: Entry; at: number }[]): JsonRecord | null {
    const pieces: Buffer[] = [];
    let from = 0;
    for (const { entry, at } of hits) {
      pieces.push(bytes.subarray(from, at), Buffer.from(`"${entry.field}":${standIn(entry.field)}`));
      from = at + entry.raw.length;
    }
    pieces.push(bytes.subarray(from));
    const joined = Buffer.concat(pieces);
    // The cached spans were checked when first seen, at top level: checking the rest is checking the whole body.
    const deep = tooDeeplyNested(joined);
    if (deep) throw deep;
    let body: JsonRecord | undefined;
    try {
      body = asRecord(JSON.parse(joined.toString('utf8')));
    } catch {
      return null;
    }
    if (!body || hits.some((hit) => body[hit.entry.field] !== standIn(hit.entry.field))) return null;
    return body;
  }

  private remember(entry: Entry): void {
    const same = this.entries.findIndex((known) => known.dialect === entry.dialect && known.field === entry.field && known.raw.equals(entry.raw));
    if (same >= 0) this.entries.splice(same, 1);
    this.entries.unshift(entry);
    const ofField = this.entries.filter((known) => known.field === entry.field && known.dialect === entry.dialect);
    if (ofField.length > ENTRIES_PER_FIELD) this.entries.splice(this.entries.lastIndexOf(ofField.at(-1)!), 1);
  }

  private promote(entry: Entry): void {
    const position = this.entries.indexOf(entry);
    if (position > 0) this.entries.unshift(...this.entries.splice(position, 1));
  }
}

/** Where `raw` occurs: candidates found by its first bytes (a short needle is found fast), then compared whole. */
function occurrence(bytes: Buffer, raw: Buffer): number {
  const head = raw.subarray(0, 64);
  for (let at = bytes.indexOf(head), tries = 0; at >= 0 && tries < 16; at = bytes.indexOf(head, at + 1), tries++)
    if (at + raw.length <= bytes.length && bytes.compare(raw, 0, raw.length, at, at + raw.length) === 0) return at;
  return -1;
}

function translatedTools(dialect: Dialect, field: unknown): { tools: ToolTranslation; toolsJson: Buffer | null } {
  const tools = dialect.translateTools(field);
  return { tools, toolsJson: tools.tools.length > 0 ? Buffer.from(`,"tools":${JSON.stringify(tools.tools)}`) : null };
}

/** Throws ProxyError 400 for a body that is not JSON or is nested too deep to walk. */
export function parseJsonBody(bytes: Buffer): unknown {
  const deep = tooDeeplyNested(bytes);
  if (deep) throw deep;
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new ProxyError(400, 'invalid_request', 'PROXY_ERR_BAD_REQUEST', 'the request body is not valid JSON');
  }
}
