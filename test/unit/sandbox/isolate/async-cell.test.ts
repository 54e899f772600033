/**
 * Cells with top-level `await` run as an async function (async-cell.ts), rewritten from acorn's syntax tree: the
 * last expression is the cell's value and top-level declarations outlive the cell. Each case below is code a
 * line-and-bracket scanner misread (a comment ending in an operator, a regex literal, a regex after `return`),
 * or a declaration form the rewrite used to leave local. Real isolates; skips loudly without isolated-vm.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { newId } from '../../../../src/core/ids.js';
import { OWNER_ID } from '../../../../src/core/owner.js';
import type { SandboxHandle } from '../../../../src/sandbox/provider.js';
import { loadProvider } from '../../../../src/sandbox/registry.js';
import { parseSandboxSpec } from '../../../../src/sandbox/spec.js';
import { backendAvailable } from '../../../helpers/backend-gate.js';

const available = await backendAvailable('isolate');

describe.skipIf(!available)('top-level await cells', () => {
  const handles: SandboxHandle[] = [];

  async function sandbox(): Promise<SandboxHandle> {
    const provider = await loadProvider('isolate');
    const handle = await provider.create(parseSandboxSpec({ backend: 'isolate' }), {
      sandboxId: newId('sbx'),
      ownerId: OWNER_ID,
      expiresAtMs: Date.now() + 60_000,
    });
    handles.push(handle);
    return handle;
  }
  const run = (handle: SandboxHandle, code: string) => handle.session.javascript({ code });

  afterEach(async () => {
    await Promise.all(handles.splice(0).map((handle) => handle.destroy()));
  });

  it('returns the last expression after a line whose comment ends in a period or an operator', async () => {
    const handle = await sandbox();
    expect((await run(handle, 'const rows = await Promise.resolve([1, 2, 3]) // the rows.\nrows.length')).value).toBe('3');
    expect((await run(handle, 'const total = await Promise.resolve(5) // a + b =\ntotal * 2')).value).toBe('10');
  });

  it('keeps a declaration that follows a line ending in a regex literal', async () => {
    const handle = await sandbox();
    const cell = 'const pattern = /ab+c/\nconst found = await Promise.resolve("xabbcx".match(pattern))\nfound[0]';
    expect((await run(handle, cell)).value).toBe('abbc');
    expect((await run(handle, 'found.index')).value).toBe('1');
  });

  it('reads brackets inside a regex after `return` as part of the regex', async () => {
    const handle = await sandbox();
    const cell = 'const lines = await Promise.resolve(["{a", "b", "(c"])\nconst opened = lines.filter((line) => { return /^[{(]/.test(line) }).length\nopened';
    expect((await run(handle, cell)).value).toBe('2');
  });

  it('reads a template literal and a string holding `const`, `;` and `,` as text', async () => {
    const handle = await sandbox();
    const cell = 'const name = await Promise.resolve("x")\nconst text = `const ${name} = 1;\n, ${"}"}`\ntext.length';
    expect((await run(handle, cell)).value).toBe('16');
    expect((await run(handle, 'text')).value).toBe('const x = 1;\n, }');
  });

  it('keeps several declarators, destructuring and a declaration without a value for later cells', async () => {
    const handle = await sandbox();
    const cell =
      'let first = await Promise.resolve(1), second = 2\nconst { third, rest: [fourth] } = await Promise.resolve({ third: 3, rest: [4] })\nlet later;';
    expect((await run(handle, cell)).error).toBeNull();
    expect((await run(handle, 'first + second + third + fourth')).value).toBe('10');
    expect((await run(handle, 'typeof later')).value).toBe('undefined');
    expect((await run(handle, 'later = 5; later')).value).toBe('5');
    // As in a script, a `var` without a value does not reset a name that already holds one.
    expect((await run(handle, 'var kept = 7')).error).toBeNull();
    expect((await run(handle, 'var kept; await null')).error).toBeNull();
    expect((await run(handle, 'kept')).value).toBe('7');
  });

  it('reports the syntax error of a cell that does not parse even with await allowed', async () => {
    const handle = await sandbox();
    const result = await run(handle, 'const a = await Promise.resolve(1)\nconst = 2');
    expect(result.error?.name).toBe('SyntaxError');
    expect((await run(handle, '"still here"')).value).toBe('still here');
  });
});
