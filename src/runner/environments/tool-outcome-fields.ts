/**
 * Defensive readers for tool results. Environments, rubrics and baseline agents read structuredContent
 * produced by an MCP server that may run another version (or be someone else's), so a field is looked up
 * under each accepted spelling and a wrong type reads as absent rather than throwing.
 */
import type { ToolOutcome } from '../contract/tool-access.js';

type Structured = ToolOutcome['structuredContent'];

export function stringField(content: Structured, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = content?.[name];
    if (typeof value === 'string') return value;
  }
  return undefined;
}

export function numberField(content: Structured, names: readonly string[]): number | undefined {
  for (const name of names) {
    const value = content?.[name];
    if (typeof value === 'number' && Number.isFinite(value)) return value;
  }
  return undefined;
}

export function booleanField(content: Structured, names: readonly string[]): boolean | undefined {
  for (const name of names) {
    const value = content?.[name];
    if (typeof value === 'boolean') return value;
  }
  return undefined;
}

/** A list of objects, e.g. search results; non-object entries are dropped. */
export function recordListField(content: Structured, names: readonly string[]): Record<string, unknown>[] | undefined {
  for (const name of names) {
    const value = content?.[name];
    if (Array.isArray(value)) return value.filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null && !Array.isArray(item));
  }
  return undefined;
}
