/**
 * A slice of a string given in JavaScript's UTF-16 units, as SQL's substr(text, start, length) takes it: 1-based,
 * in characters (code points), so an astral character (an emoji, a rare CJK ideograph: two UTF-16 units) counts once.
 */
const SURROGATE_PAIR_START = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g;

function pairsBefore(text: string, end: number): number {
  let pairs = 0;
  SURROGATE_PAIR_START.lastIndex = 0;
  for (let match = SURROGATE_PAIR_START.exec(text); match !== null && match.index < end; match = SURROGATE_PAIR_START.exec(text)) pairs += 1;
  return pairs;
}

/** [start, length] for substr: the characters of text.slice(start, end). */
export function characterSpan(text: string, start: number, end: number): [number, number] {
  if (!/[\uD800-\uDFFF]/.test(text)) return [start + 1, end - start];
  const before = pairsBefore(text, start);
  return [start - before + 1, end - start - (pairsBefore(text, end) - before)];
}
