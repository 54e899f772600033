/**
 * Undo WikiText-2's tokenisation artefacts so that pages read like prose, for display and for indexing.
 * WikiText writes in-word hyphens, commas and points as ` @-@ `, ` @,@ `, ` @.@ `, and puts spaces
 * around every punctuation mark ("actor . He", "Kirby 's", `" Craig "`). Ordinary text is left alone:
 * the spacing rules only run on text that shows the tokenised style, because on normal prose a rule
 * like "drop the space after an opening quote" would glue words together.
 */

const IN_WORD_MARKERS = / @([-,.])@ /g;
/** ` , ` between words is the signature of tokenised text; normal prose almost never has it. */
const SPACED_COMMA = /\w , \w/g;
const TOKENISED_THRESHOLD = 3;

const SPACE_BEFORE_CLOSING = / +([.,;:!?%)\]}])/g;
const SPACE_AFTER_OPENING = /([([{]) +/g;
const SPACE_BEFORE_CLITIC = /(\w) +('(?:s|re|ve|ll|d|m|t)|n't)\b/gi;

/** True when the text carries WikiText's tokenisation (markers, or several spaced commas). */
export function looksTokenised(text: string): boolean {
  if (text.includes(' @-@ ') || text.includes(' @,@ ') || text.includes(' @.@ ')) return true;
  let count = 0;
  SPACED_COMMA.lastIndex = 0;
  while (SPACED_COMMA.exec(text) !== null) {
    count += 1;
    if (count >= TOKENISED_THRESHOLD) return true;
  }
  return false;
}

/** Pair straight double quotes line by line and drop the inner padding: `" Craig "` → `"Craig"`. */
function tightenQuotes(line: string): string {
  const parts = line.split('"');
  // An odd number of quotes leaves the last one unpaired; it is kept as it is.
  for (let index = 1; index < parts.length; index += 2) {
    if (index + 1 >= parts.length) break;
    parts[index] = (parts[index] ?? '').trim();
  }
  return parts.join('"');
}

/** Normalise one line of tokenised text (no newlines inside). */
function normaliseTokenisedLine(line: string): string {
  return tightenQuotes(
    line.replace(IN_WORD_MARKERS, '$1').replace(SPACE_BEFORE_CLOSING, '$1').replace(SPACE_AFTER_OPENING, '$1').replace(SPACE_BEFORE_CLITIC, '$1$2'),
  );
}

/**
 * Normalise `text` if it looks tokenised; otherwise only the unambiguous `@-@`-style markers are
 * replaced. Line structure (and so markdown headings and paragraphs) is preserved; trailing spaces
 * and carriage returns (WikiText headings end in CR LF) are trimmed from each line.
 */
export function normaliseWikiText(text: string, tokenised = looksTokenised(text)): string {
  const lines = text.split('\n').map((line) => line.replace(/[ \t\r]+$/, ''));
  if (!tokenised) return lines.map((line) => line.replace(IN_WORD_MARKERS, '$1')).join('\n');
  return lines.map(normaliseTokenisedLine).join('\n');
}
