/**
 * Rewrites a cell that uses top-level `await` (invalid in a classic script) into an async function call, keeping
 * as much REPL behaviour as a rewrite safely can:
 *
 * - the body is wrapped as `(async () => {\n<cell>\n})()`; the compiler sets lineOffset -1 so stack lines match;
 * - top-level `var|let|const name = …` (one declarator) becomes `name = …`, a sloppy-mode assignment that creates
 *   or updates a global, so the name outlives the cell as it would in a script cell (`const` loses immutability);
 * - the last top-level statement, when it is an expression, becomes `return (<expression>\n);` so the awaited value
 *   is the cell's value. The parentheses make a wrong guess fail to compile (and the caller then compiles the
 *   variant without `return`) instead of returning early and skipping code.
 *
 * Function and class declarations, destructuring and multi-declarator statements stay local to the cell.
 */
import { isBlank, scanTopLevel, statementStarts } from './top-level-scan.js';

/** Statements that produce no value worth returning, or that `return (…)` would break. */
const NOT_AN_EXPRESSION =
  /^(?:const|let|var|function|async\s+function|class|if|else|for|while|do|switch|try|catch|finally|throw|return|break|continue|import|export|debugger)\b|^[{}]/;
/** `var|let|const` plus whitespace, when followed by one identifier and `=` (not `==`). */
const SIMPLE_DECLARATION = /^(?:var|let|const)\s+(?=[A-Za-z_$][\w$]*\s*=(?!=))/;

interface Edit {
  start: number;
  end: number;
  text: string;
}

function applyEdits(code: string, edits: Edit[]): string {
  let result = '';
  let cursor = 0;
  for (const edit of [...edits].sort((left, right) => left.start - right.start)) {
    result += code.slice(cursor, edit.start) + edit.text;
    cursor = edit.end;
  }
  return result + code.slice(cursor);
}

export function wrapAsync(body: string): string {
  return `(async () => {\n${body}\n})()`;
}

export interface AsyncCellVariants {
  /** With the last expression returned, or null when the cell does not end in an expression. */
  returningValue: string | null;
  /** Without a return: the cell runs for its effects only. */
  effectsOnly: string;
}

export function asyncCellVariants(code: string): AsyncCellVariants {
  const scan = scanTopLevel(code);
  const starts = statementStarts(code, scan);
  const declarationEdits: Edit[] = [];
  starts.forEach((start, position) => {
    const keyword = SIMPLE_DECLARATION.exec(code.slice(start));
    const end = starts[position + 1] ?? code.length;
    const oneDeclarator = !scan.commas.some((comma) => comma > start && comma < end);
    if (keyword && oneDeclarator) declarationEdits.push({ start, end: start + keyword[0].length, text: '' });
  });
  const effectsOnly = wrapAsync(applyEdits(code, declarationEdits));

  const last = starts.at(-1);
  if (last === undefined || NOT_AN_EXPRESSION.test(code.slice(last))) return { returningValue: null, effectsOnly };
  const semicolon = scan.semicolons.find((offset) => offset >= last);
  const expressionEnd = semicolon ?? code.length;
  if (!isBlank(code.slice(semicolon === undefined ? code.length : semicolon + 1))) return { returningValue: null, effectsOnly };
  const returnEdit: Edit = { start: last, end: semicolon === undefined ? code.length : semicolon + 1, text: `return (${code.slice(last, expressionEnd)}\n);` };
  return { returningValue: wrapAsync(applyEdits(code, [...declarationEdits, returnEdit])), effectsOnly };
}
