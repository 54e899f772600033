/**
 * Rewrites a cell that uses top-level `await` (invalid in a classic script) into an async function call, keeping
 * as much REPL behaviour as a rewrite safely can. acorn parses the cell (await allowed outside functions), so
 * strings, templates, regex literals and comments are read as the compiler reads them:
 *
 * - the body is wrapped as `(async () => {\n<cell>\n})()`; the compiler sets lineOffset -1 so stack lines match;
 * - a top-level `var|let|const` declaration becomes a parenthesised sloppy-mode assignment, `;(a = 1, { b } = c);`,
 *   which creates or updates globals, so the names outlive the cell as they would in a script cell (`const` loses
 *   immutability); a `let` name declared without a value is assigned `undefined`;
 * - the last top-level statement, when it is an expression statement, becomes `return (<expression>);` so the
 *   awaited value is the cell's value.
 *
 * Function and class declarations and `using` declarations stay local to the cell. Every edit keeps line breaks
 * where they were, so error positions still point at the user's lines.
 */
import { parse, type Program, type VariableDeclaration } from 'acorn';

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

/** Null when the cell does not parse even with top-level await: the compiler's own message is the one to show. */
function parseCell(code: string): Program | null {
  try {
    return parse(code, { ecmaVersion: 'latest', sourceType: 'script', allowAwaitOutsideFunction: true, allowReturnOutsideFunction: true });
  } catch {
    return null;
  }
}

/**
 * `let a = 1, b` → `;(a = 1, b = undefined);`. The semicolons keep automatic semicolon insertion from reading a
 * parenthesis as a call of the line before (the declaration's own `;`, if any, stays where it was).
 */
function declarationAsAssignment(code: string, declaration: VariableDeclaration): Edit[] {
  const first = declaration.declarations[0];
  const last = declaration.declarations.at(-1);
  if (!first || !last) return [];
  const edits: Edit[] = [{ start: declaration.start, end: first.start, text: ';(' }];
  for (const declarator of declaration.declarations) {
    if (!declarator.init) edits.push({ start: declarator.end, end: declarator.end, text: ' = undefined' });
  }
  edits.push({ start: last.end, end: last.end, text: ')' });
  if (code[declaration.end - 1] !== ';') edits.push({ start: declaration.end, end: declaration.end, text: ';' });
  return edits;
}

function canBecomeAssignment(declaration: VariableDeclaration): boolean {
  if (declaration.kind !== 'var' && declaration.kind !== 'let' && declaration.kind !== 'const') return false;
  // `let a;` starts a fresh name, so `a = undefined` is faithful; `var a;` keeps an existing value, so it stays local.
  return declaration.declarations.every((declarator) => declarator.init || (declaration.kind === 'let' && declarator.id.type === 'Identifier'));
}

export function asyncCellVariants(code: string): AsyncCellVariants {
  const program = parseCell(code);
  if (program === null) return { returningValue: null, effectsOnly: wrapAsync(code) };

  const declarationEdits = program.body.flatMap((statement) =>
    statement.type === 'VariableDeclaration' && canBecomeAssignment(statement) ? declarationAsAssignment(code, statement) : [],
  );
  const effectsOnly = wrapAsync(applyEdits(code, declarationEdits));

  const last = program.body.at(-1);
  if (last?.type !== 'ExpressionStatement') return { returningValue: null, effectsOnly };
  const expression = code.slice(last.expression.start, last.expression.end);
  const returnEdit: Edit = { start: last.start, end: last.end, text: `return (${expression});` };
  return { returningValue: wrapAsync(applyEdits(code, [...declarationEdits, returnEdit])), effectsOnly };
}
