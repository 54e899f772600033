import { MAX_JSON_DEPTH, tooDeeplyNested } from './json-depth.js';

/** Small readers for untrusted JSON: the CLI's request bodies are checked field by field, never cast whole. */
export type JsonRecord = Record<string, unknown>;

export function asRecord(value: unknown): JsonRecord | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonRecord) : undefined;
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * Tool arguments travel as a JSON string in Chat Completions and as an object elsewhere. Arguments nested deeper than
 * the proxy walks (json-depth.ts) stay text too: serialising them back for the CLI would overflow the stack.
 */
export function parseArgumentsObject(text: string): JsonRecord {
  if (text.length > MAX_JSON_DEPTH && tooDeeplyNested(Buffer.from(text))) return { _raw_arguments: text };
  try {
    return asRecord(JSON.parse(text || '{}')) ?? {};
  } catch {
    // A model that wrote broken JSON: the CLI gets the raw text under one key rather than nothing.
    return { _raw_arguments: text };
  }
}
