/**
 * Converts what a script threw, as isolated-vm hands it to the host, into the {name, message, stack} value the
 * model sees. isolated-vm copies Error objects (name, message, stack) and primitives; other thrown objects arrive
 * as a generic Error saying so. Stacks end with the isolate boundary followed by host frames, which are cut off:
 * host file paths are none of the model's business.
 */
import type { JavascriptError } from './cell-compiler.js';

const BOUNDARY_FRAME = '<isolated-vm boundary>';
const REDECLARATION = /^Identifier '.+' has already been declared$/;

function isolateStack(stack: string): string {
  const lines = stack.split('\n');
  const boundary = lines.findIndex((line) => line.includes(BOUNDARY_FRAME));
  return (boundary < 0 ? lines : lines.slice(0, boundary)).join('\n');
}

/** Re-running a cell that declares `let x` is the classic REPL trap; say why it fails and what works. */
function withHint(name: string, message: string): string {
  if (name === 'SyntaxError' && REDECLARATION.test(message)) {
    return `${message} (top-level let/const/class declarations persist between calls: assign to the existing name instead)`;
  }
  return message;
}

export function thrownValue(thrown: unknown): JavascriptError {
  if (thrown instanceof Error) {
    const name = String(thrown.name);
    const message = withHint(name, String(thrown.message));
    const stack = typeof thrown.stack === 'string' ? isolateStack(thrown.stack) : '';
    return { name, message, stack: message === thrown.message ? stack : `${name}: ${message}` };
  }
  return { name: 'Uncaught', message: String(thrown), stack: '' };
}
