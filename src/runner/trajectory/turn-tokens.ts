/**
 * Reading a record's per-turn token data. Records are written in snake_case (prompt_token_ids, completion_token_ids,
 * completion_logprobs); records written before that rename used camelCase, and old runs must still open, so every
 * reader goes through here and accepts both spellings.
 */
import type { TurnTokens } from './messages.js';

/** One turn's tokens in the current spelling; undefined when the value holds no token data at all. */
export function readTurnTokensEntry(value: unknown): TurnTokens | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const entry = value as Record<string, unknown>;
  const tokens: TurnTokens = {};
  if (typeof entry['turn'] === 'number') tokens.turn = entry['turn'];
  const promptIds = numbers(entry['prompt_token_ids'] ?? entry['promptTokenIds']);
  const completionIds = numbers(entry['completion_token_ids'] ?? entry['completionTokenIds']);
  const logprobs = numbers(entry['completion_logprobs'] ?? entry['completionLogprobs']);
  if (promptIds) tokens.prompt_token_ids = promptIds;
  if (completionIds) tokens.completion_token_ids = completionIds;
  if (logprobs) tokens.completion_logprobs = logprobs;
  return tokens;
}

/** A record's `tokens` field in the current spelling (null stays null; entries that are not objects are dropped). */
export function readTurnTokens(value: unknown): TurnTokens[] | null {
  if (!Array.isArray(value)) return null;
  const entries = value.map(readTurnTokensEntry).filter((entry): entry is TurnTokens => entry !== undefined);
  return entries;
}

/** True when the record uses an old spelling, so a reader knows it must rewrite it. */
export function hasLegacyTokenSpelling(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    value.some(
      (entry) => typeof entry === 'object' && entry !== null && ('promptTokenIds' in entry || 'completionTokenIds' in entry || 'completionLogprobs' in entry),
    )
  );
}

/** Arrays are taken as written (corral wrote them from numbers it checked on arrival); checking 8k ids per turn again would dominate sample building. */
function numbers(value: unknown): number[] | undefined {
  return Array.isArray(value) ? (value as number[]) : undefined;
}
