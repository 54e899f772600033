/**
 * Finds the last top-level statement of a cell so that an async-wrapped cell can `return` it, giving top-level
 * `await` cells a completion value the way a script has one. This is a light scanner, not a parser: it skips
 * strings, template literals, comments and (heuristically) regular expressions, and tracks bracket depth. When it
 * is unsure it returns null and the cell simply has no value; the compiler also rejects any rewrite that does not
 * parse. It only ever rewrites the statement that runs last, so a wrong guess can drop a value but never skip code.
 */

/** Statements that produce no value worth returning, or that `return` would break. */
const STATEMENT_KEYWORD =
  /^(?:const|let|var|function|async\s+function|class|if|else|for|while|do|switch|try|catch|finally|throw|return|break|continue|import|export|debugger)\b|^[{}]/;
/** A line starting like this continues the previous line's expression. */
const CONTINUATION_START = /^(?:[+\-*%&|^<>=?:.,)\]]|\/(?![/*]))/;
/** A line ending like this is continued by the next line. */
const CONTINUED_END = /(?:[+\-*/%&|^<>=?:,([{.!~]|=>)$/;
/** After these characters a `/` starts a regular expression rather than a division. */
const REGEX_MAY_FOLLOW = new Set(['', '(', ',', '=', ':', '[', '!', '&', '|', '?', '{', '}', ';', '+', '-', '*', '%', '<', '>', '~', '^']);

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

/** Offsets where a top-level statement may start: after a top-level newline or `;`. Always includes 0. */
export function topLevelBoundaries(code: string): number[] {
  const boundaries = [0];
  let depth = 0;
  let inTemplate = false;
  const templateResumeDepths: number[] = [];
  let previous = '';
  let index = 0;
  while (index < code.length) {
    const char = code[index] ?? '';
    const next = code[index + 1] ?? '';
    if (inTemplate) {
      if (char === '\\') index += 2;
      else if (char === '`') [inTemplate, index, previous] = [false, index + 1, '`'];
      else if (char === '$' && next === '{') [inTemplate, index, depth] = [false, index + 2, depth + 1], templateResumeDepths.push(depth - 1);
      else index += 1;
      continue;
    }
    if (char === '/' && next === '/') {
      const end = code.indexOf('\n', index);
      index = end < 0 ? code.length : end;
      continue;
    }
    if (char === '/' && next === '*') {
      const end = code.indexOf('*/', index + 2);
      index = end < 0 ? code.length : end + 2;
      continue;
    }
    index += 1;
    if (/\s/.test(char)) {
      if (char === '\n' && depth === 0) boundaries.push(index);
      continue;
    }
    if (char === '"' || char === "'") index = skipQuoted(code, index - 1, char);
    else if (char === '/' && REGEX_MAY_FOLLOW.has(previous)) index = skipRegex(code, index - 1);
    else if (char === '`') inTemplate = true;
    else if (char === '(' || char === '[' || char === '{') depth += 1;
    else if (char === ')' || char === ']' || char === '}') {
      depth = Math.max(0, depth - 1);
      if (char === '}' && templateResumeDepths.at(-1) === depth) [inTemplate] = [true, templateResumeDepths.pop()];
    } else if (char === ';' && depth === 0) boundaries.push(index);
    previous = char;
  }
  return boundaries;
}

/** The cell with `return ` in front of its last top-level statement when that is an expression, else null. */
export function returnLastExpression(code: string): string | null {
  const boundaries = topLevelBoundaries(code);
  for (let position = boundaries.length - 1; position >= 0; position -= 1) {
    const start = boundaries[position] ?? 0;
    const rest = code.slice(start);
    const text = rest.trimStart();
    const firstLine = (text.split('\n')[0] ?? '').trim();
    if (firstLine === '' || firstLine === ';' || firstLine.startsWith('//') || firstLine.startsWith('/*')) continue;
    const before = code.slice(0, start).trimEnd();
    if (CONTINUATION_START.test(firstLine) || CONTINUED_END.test(before)) continue;
    if (STATEMENT_KEYWORD.test(firstLine)) return null;
    return `${code.slice(0, start)}${rest.slice(0, rest.length - text.length)}return ${text}`;
  }
  return null;
}
