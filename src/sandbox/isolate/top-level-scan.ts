/**
 * A light scanner, not a parser, for the few things the async-cell rewrite needs to know about a cell: where its
 * top-level statements start, and where its top-level commas and semicolons are. It skips strings, template
 * literals (with nested `${}`), comments and, heuristically, regular expressions, and tracks bracket depth.
 * "Top level" means bracket depth 0 of the cell's own text. Its guesses are checked by the compiler downstream.
 */

export interface TopLevelScan {
  /** Offsets just after a top-level newline or `;`, plus 0: places where a statement may start. */
  boundaries: number[];
  /** Offsets of top-level `;` and `,` characters. */
  semicolons: number[];
  commas: number[];
}

/** After these characters a `/` starts a regular expression rather than a division. */
const REGEX_MAY_FOLLOW = new Set(['', '(', ',', '=', ':', '[', '!', '&', '|', '?', '{', '}', ';', '+', '-', '*', '%', '<', '>', '~', '^']);
/** A line starting like this continues the previous line's expression. */
const CONTINUATION_START = /^(?:[+\-*%&|^<>=?:.,)\]]|\/(?![/*]))/;
/** A line ending like this is continued by the next one (but `i++` and `i--` end a statement). */
const CONTINUED_END = /(?:[+\-*/%&|^<>=?:,([{.!~]|=>)$/;
const POSTFIX_END = /(?:\+\+|--)$/;

function skipQuoted(code: string, start: number, quote: string): number {
  let index = start + 1;
  while (index < code.length && code[index] !== quote && code[index] !== '\n') index += code[index] === '\\' ? 2 : 1;
  return index + 1;
}

function skipRegex(code: string, start: number): number {
  let index = start + 1;
  let inClass = false;
  while (index < code.length && code[index] !== '\n') {
    const char = code[index];
    if (char === '\\') index += 1;
    else if (char === '[') inClass = true;
    else if (char === ']') inClass = false;
    else if (char === '/' && !inClass) return index + 1;
    index += 1;
  }
  return index;
}

export function scanTopLevel(code: string): TopLevelScan {
  const scan: TopLevelScan = { boundaries: [0], semicolons: [], commas: [] };
  let depth = 0;
  let inTemplate = false;
  const templateResumeDepths: number[] = [];
  let previous = '';
  let index = 0;
  while (index < code.length) {
    const char = code[index] ?? '';
    const next = code[index + 1] ?? '';
    if (inTemplate) {
      if (char === '\\') {
        index += 2;
      } else if (char === '`') {
        inTemplate = false;
        previous = '`';
        index += 1;
      } else if (char === '$' && next === '{') {
        // `${` opens an expression; the `}` that brings depth back here resumes the template.
        templateResumeDepths.push(depth);
        depth += 1;
        inTemplate = false;
        index += 2;
      } else {
        index += 1;
      }
      continue;
    }
    if (char === '/' && (next === '/' || next === '*')) {
      const end = next === '/' ? code.indexOf('\n', index) : code.indexOf('*/', index + 2);
      index = end < 0 ? code.length : next === '/' ? end : end + 2;
      continue;
    }
    index += 1;
    if (/\s/.test(char)) {
      if (char === '\n' && depth === 0) scan.boundaries.push(index);
      continue;
    }
    if (char === '"' || char === "'") index = skipQuoted(code, index - 1, char);
    else if (char === '/' && REGEX_MAY_FOLLOW.has(previous)) index = skipRegex(code, index - 1);
    else if (char === '`') inTemplate = true;
    else if (char === '(' || char === '[' || char === '{') depth += 1;
    else if (char === ')' || char === ']' || char === '}') {
      depth = Math.max(0, depth - 1);
      if (char === '}' && templateResumeDepths.at(-1) === depth) {
        templateResumeDepths.pop();
        inTemplate = true;
      }
    } else if (depth === 0 && char === ';') {
      scan.semicolons.push(index - 1);
      scan.boundaries.push(index);
    } else if (depth === 0 && char === ',') scan.commas.push(index - 1);
    previous = char;
  }
  return scan;
}

/** True when the text is only whitespace and comments. */
export function isBlank(text: string): boolean {
  return (
    text
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/\/\/[^\n]*/g, '')
      .trim() === ''
  );
}

/** Offsets of the first character of each top-level statement, in order (continuation lines are not starts). */
export function statementStarts(code: string, scan: TopLevelScan): number[] {
  const starts = new Set<number>();
  for (const boundary of scan.boundaries) {
    const start = code.length - code.slice(boundary).trimStart().length;
    const firstLine = (code.slice(start).split('\n')[0] ?? '').trim();
    if (firstLine === '' || firstLine.startsWith(';') || isBlank(firstLine)) continue;
    const before = code.slice(0, boundary).trimEnd();
    if (CONTINUATION_START.test(firstLine) || (CONTINUED_END.test(before) && !POSTFIX_END.test(before))) continue;
    starts.add(start);
  }
  return [...starts].sort((left, right) => left - right);
}
