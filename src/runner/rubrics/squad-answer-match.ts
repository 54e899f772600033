/**
 * Answer matching as the official SQuAD v1.1 evaluation script does it: lower-case, drop ASCII punctuation,
 * drop the articles a/an/the, collapse whitespace; exact match and token F1 on the result, each taken as the
 * maximum over the gold answers. Kept faithful so numbers compare with published SQuAD figures.
 */

/** Python's string.punctuation. */
const PUNCTUATION = new Set('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~');
/** Python's `\b(a|an|the)\b` is Unicode-aware; JavaScript's `\b` is ASCII-only, so spell the boundaries out. */
const ARTICLES = /(?<![\p{L}\p{N}_])(?:a|an|the)(?![\p{L}\p{N}_])/gu;

export function normaliseAnswer(text: string): string {
  const lower = text.toLowerCase();
  let withoutPunctuation = '';
  for (const character of lower) if (!PUNCTUATION.has(character)) withoutPunctuation += character;
  return withoutPunctuation.replace(ARTICLES, ' ').split(/\s+/u).filter(Boolean).join(' ');
}

export function answerTokens(text: string): string[] {
  const normalised = normaliseAnswer(text);
  return normalised === '' ? [] : normalised.split(' ');
}

export function exactMatch(prediction: string, gold: string): number {
  return normaliseAnswer(prediction) === normaliseAnswer(gold) ? 1 : 0;
}

/** Token-overlap F1 (bag of tokens, as the official script counts them). */
export function tokenF1(prediction: string, gold: string): number {
  const predicted = answerTokens(prediction);
  const expected = answerTokens(gold);
  const remaining = new Map<string, number>();
  for (const token of expected) remaining.set(token, (remaining.get(token) ?? 0) + 1);
  let common = 0;
  for (const token of predicted) {
    const count = remaining.get(token) ?? 0;
    if (count > 0) {
      common++;
      remaining.set(token, count - 1);
    }
  }
  if (common === 0) return 0;
  const precision = common / predicted.length;
  const recall = common / expected.length;
  return (2 * precision * recall) / (precision + recall);
}

/** The best score of `prediction` against any gold answer; 0 when there is no gold answer. */
export function maxOverGold(metric: (prediction: string, gold: string) => number, prediction: string, golds: readonly string[]): number {
  return golds.reduce((best, gold) => Math.max(best, metric(prediction, gold)), 0);
}
