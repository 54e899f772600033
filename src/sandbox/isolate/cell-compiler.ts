/**
 * Turns the code of one call (a "cell") into a compiled Script, or a SyntaxError value.
 *
 * A cell runs as a classic script in the persistent context, so its top-level `let`, `const`, `class`, `var` and
 * function declarations stay visible to later cells (V8 keeps script-scope bindings per context), and its
 * completion value is the value of its last expression statement.
 *
 * Top-level `await` is not valid in a script. When the cell fails to parse and mentions `await`, it is rewritten
 * as an async function call whose promise is the completion value (see async-cell.ts): top-level variable
 * declarations become global assignments, and the last expression is returned.
 */
import type { Isolate, Script } from 'isolated-vm';
import type { JavascriptResult } from '../session.js';
import { asyncCellVariants } from './async-cell.js';

export type JavascriptError = NonNullable<JavascriptResult['error']>;

export type CompiledCell = { script: Script; error: null } | { script: null; error: JavascriptError };

const MENTIONS_AWAIT = /\bawait\b/;

/** Compile failures are host-side errors whose stack lists host frames; only the message concerns the model. */
function syntaxErrorValue(error: unknown): JavascriptError | null {
  if (!(error instanceof Error) || error.name !== 'SyntaxError') return null;
  return { name: error.name, message: error.message, stack: `${error.name}: ${error.message}` };
}

async function tryCompile(isolate: Isolate, source: string, filename: string, lineOffset: number): Promise<CompiledCell> {
  try {
    return { script: await isolate.compileScript(source, { filename, lineOffset }), error: null };
  } catch (error) {
    const value = syntaxErrorValue(error);
    if (value === null) throw error;
    return { script: null, error: value };
  }
}

/** Throws only for infrastructure faults (e.g. the isolate was disposed); a SyntaxError is returned as a value. */
export async function compileCell(isolate: Isolate, code: string, filename: string): Promise<CompiledCell> {
  const plain = await tryCompile(isolate, code, filename, 0);
  if (plain.script !== null || !MENTIONS_AWAIT.test(code)) return plain;

  const variants = asyncCellVariants(code);
  if (variants.returningValue !== null) {
    const withValue = await tryCompile(isolate, variants.returningValue, filename, -1);
    if (withValue.script !== null) return withValue;
  }
  // If this fails too, its message is the accurate one: the await itself was not the problem.
  return tryCompile(isolate, variants.effectsOnly, filename, -1);
}
