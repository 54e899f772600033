/**
 * The isolate backend against real isolated-vm isolates: a persistent JavaScript REPL with per-call timeouts, a
 * memory limit, no host APIs, and the lifecycle the pool relies on. Skips loudly without isolated-vm (throws in CI).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CorralError } from '../../src/core/errors.js';
import { newId } from '../../src/core/ids.js';
import { OWNER_ID } from '../../src/core/owner.js';
import type { SandboxHandle, SandboxProvider } from '../../src/sandbox/provider.js';
import { loadProvider } from '../../src/sandbox/registry.js';
import { parseSandboxSpec, type SandboxSpecInput } from '../../src/sandbox/spec.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { describeSandboxConformance } from './sandbox-conformance.js';

const available = await backendAvailable('isolate');

describe.skipIf(!available)('isolate backend', () => {
  const handles: SandboxHandle[] = [];
  let provider: SandboxProvider;

  async function createSandbox(spec: SandboxSpecInput = {}): Promise<SandboxHandle> {
    provider ??= await loadProvider('isolate');
    const handle = await provider.create(parseSandboxSpec({ backend: 'isolate', ...spec }), {
      sandboxId: newId('sbx'),
      ownerId: OWNER_ID,
      expiresAtMs: Date.now() + 60_000,
    });
    handles.push(handle);
    return handle;
  }

  async function run(handle: SandboxHandle, code: string, timeoutMs?: number) {
    return handle.session.javascript({ code, ...(timeoutMs === undefined ? {} : { timeoutMs }) });
  }

  afterEach(async () => {
    await Promise.all(handles.splice(0).map((handle) => handle.destroy()));
  });

  it('describes itself as a javascript-only sandbox without a workspace', async () => {
    const handle = await createSandbox();
    expect(handle.session.backend).toBe('isolate');
    expect([...handle.session.capabilities]).toEqual(['javascript']);
    expect(handle.session.workspace).toBe('');
    expect(handle.closed).toBe(false);
    expect(await handle.health()).toBe(true);
    expect(await provider.cleanup({ ownerAlive: () => true })).toBe(0); // nothing orphaned or expired
    expect(handle.closed).toBe(false);
  });

  it('keeps let, const, var and function declarations across calls', async () => {
    const handle = await createSandbox();
    expect((await run(handle, 'let x = 1; const y = 10; var z = 100; function double(n) { return n * 2 }')).error).toBeNull();
    expect((await run(handle, 'x + 1')).value).toBe('2');
    expect((await run(handle, 'double(x + y + z)')).value).toBe('222');
  });

  it('renders completion values as text', async () => {
    const handle = await createSandbox();
    expect((await run(handle, '6 * 7')).value).toBe('42');
    expect((await run(handle, '"hello"')).value).toBe('hello');
    expect((await run(handle, '({ a: 1, b: "two", c: [1, 2] })')).value).toBe('{ a: 1, b: "two", c: [ 1, 2 ] }');
    expect((await run(handle, 'undefined')).value).toBeNull();
    expect((await run(handle, 'const loop = { name: "loop" }; loop.self = loop; loop')).value).toBe('{ name: "loop", self: [Circular] }');
    expect((await run(handle, 'new Map([["k", 1]])')).value).toBe('Map(1) { "k" => 1 }');
  });

  it('captures console lines in order, separately for each call', async () => {
    const handle = await createSandbox();
    const result = await run(handle, 'console.log("a", 1, { b: 2 }); console.info("info"); console.warn("warn"); console.error("error"); "done"');
    expect(result.logs).toEqual(['a 1 { b: 2 }', 'info', 'warn', 'error']);
    expect(result.value).toBe('done');
    expect((await run(handle, '1')).logs).toEqual([]);
  });

  it('returns a thrown error as a value, without host stack frames', async () => {
    const handle = await createSandbox();
    const result = await run(handle, 'function fail() { throw new TypeError("boom") }\nfail()');
    expect(result.value).toBeNull();
    expect(result.error).toMatchObject({ name: 'TypeError', message: 'boom' });
    expect(result.error?.stack).toContain('TypeError: boom');
    expect(result.error?.stack).not.toMatch(/file:|node_modules|isolated-vm boundary/);
    expect(result.stateLost).toBe(false);
    expect((await run(handle, 'throw "plain"')).error).toMatchObject({ name: 'Uncaught', message: 'plain' });
  });

  it('returns a syntax error as a value and keeps the context', async () => {
    const handle = await createSandbox();
    await run(handle, 'var kept = "yes"');
    const result = await run(handle, 'let = ;');
    expect(result.error?.name).toBe('SyntaxError');
    expect(result.stateLost).toBe(false);
    expect((await run(handle, 'kept')).value).toBe('yes');
  });

  it('supports top-level await and awaits returned promises', async () => {
    const handle = await createSandbox();
    expect((await run(handle, 'await Promise.resolve(21) * 2')).value).toBe('42');
    expect((await run(handle, 'const fetched = await Promise.resolve("data")\nfetched.toUpperCase()')).value).toBe('DATA');
    expect((await run(handle, 'fetched')).value).toBe('data');
    expect((await run(handle, 'Promise.resolve("later")')).value).toBe('later');
    expect((await run(handle, 'await null; throw new RangeError("async boom")')).error).toMatchObject({ name: 'RangeError', message: 'async boom' });
  });

  it('runs every statement of an await cell, returning only its last expression', async () => {
    const handle = await createSandbox();
    expect((await run(handle, 'await Promise.all([\n  Promise.resolve(1),\n  2,\n]) // both')).value).toBe('[ 1, 2 ]');
    const loop = await run(handle, 'var seen = []\nfor (const n of [1, 2, 3]) {\n  seen.push(await Promise.resolve(n))\n}');
    expect(loop).toMatchObject({ value: null, error: null });
    expect((await run(handle, 'seen')).value).toBe('[ 1, 2, 3 ]');
  });

  it('stops an endless loop at the timeout, rebuilds the context and keeps working', async () => {
    const handle = await createSandbox();
    await run(handle, 'var before = 1');
    const result = await run(handle, 'console.log("started"); while (true) {}', 200);
    expect(result).toMatchObject({ timedOut: true, stateLost: true, value: null, logs: ['started'] });
    expect((await run(handle, 'typeof before')).value).toBe('undefined');
    expect((await run(handle, '1 + 1')).value).toBe('2');
    expect(await handle.health()).toBe(true);
  });

  it('times out a promise that never settles', async () => {
    const handle = await createSandbox();
    const result = await run(handle, 'await new Promise(() => {})', 200);
    expect(result).toMatchObject({ timedOut: true, stateLost: true });
    expect((await run(handle, '"alive"')).value).toBe('alive');
  });

  it('recovers from exhausting the memory limit with the state lost', async () => {
    const handle = await createSandbox({ memoryMiB: 64 });
    await run(handle, 'var before = 1');
    const result = await run(handle, 'const a = []; while (true) a.push(new Array(1e6).fill(1))', 30_000);
    expect(result.timedOut).toBe(false);
    expect(result.stateLost).toBe(true);
    expect(result.error?.name).toBe('MemoryLimitError');
    expect(result.error?.message).toContain('SBX_ERR_MEMORY_LIMIT');
    expect((await run(handle, 'typeof before')).value).toBe('undefined');
    expect((await run(handle, '[1, 2, 3].length')).value).toBe('3');
    expect(handle.closed).toBe(false);
  });

  it('rejects shell, python and file operations with SBX_ERR_UNSUPPORTED', async () => {
    const { session } = await createSandbox();
    const attempts: Array<Promise<unknown>> = [
      session.exec({ command: 'echo hi' }),
      session.python({ code: '1' }),
      session.resetPython(),
      session.files.read({ path: 'a.txt' }),
      session.files.write({ path: 'a.txt', content: 'x' }),
    ];
    for (const attempt of attempts) {
      const error = await attempt.then(
        () => null,
        (thrown: unknown) => thrown,
      );
      expect(CorralError.hasCode(error, 'SBX_ERR_UNSUPPORTED')).toBe(true);
    }
  });

  it('exposes no host globals', async () => {
    const handle = await createSandbox();
    const result = await run(handle, '[typeof require, typeof process, typeof fetch, typeof module, typeof setTimeout].join(",")');
    expect(result.value).toBe('undefined,undefined,undefined,undefined,undefined');
  });

  it('does not share globals between two sandboxes', async () => {
    const first = await createSandbox();
    const second = await createSandbox();
    await run(first, 'var secret = "first"; globalThis.leak = 1');
    expect((await run(second, 'typeof secret + " " + typeof leak')).value).toBe('undefined undefined');
  });

  it('reset clears globals and proves it', async () => {
    const handle = await createSandbox();
    await run(handle, 'var left = 1; let lexical = 2');
    const report = await handle.reset();
    expect(report.ok).toBe(true);
    expect((await run(handle, 'typeof left + " " + typeof lexical')).value).toBe('undefined undefined');
    expect((await run(handle, 'let lexical = 3; lexical')).value).toBe('3');
  });

  it('aborting a running call throws ERR_ABORTED and the next result reports lost state', async () => {
    const handle = await createSandbox();
    const controller = new AbortController();
    const call = handle.session.javascript({ code: 'while (true) {}', timeoutMs: 30_000, abortSignal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(call).rejects.toSatisfy((error: unknown) => CorralError.hasCode(error, 'ERR_ABORTED'));
    expect(await run(handle, '1')).toMatchObject({ value: '1', stateLost: true });
    expect(await run(handle, '2')).toMatchObject({ value: '2', stateLost: false });
  });

  it('destroy is idempotent and later calls throw SBX_ERR_CLOSED', async () => {
    const handle = await createSandbox();
    await handle.destroy();
    await handle.destroy();
    expect(handle.closed).toBe(true);
    expect(await handle.health()).toBe(false);
    await expect(run(handle, '1')).rejects.toSatisfy((error: unknown) => CorralError.hasCode(error, 'SBX_ERR_CLOSED'));
    expect((await handle.reset()).ok).toBe(false);
  });

  it('runs 20 concurrent calls in one sandbox one at a time, each with its own result and logs', async () => {
    const handle = await createSandbox();
    await run(handle, 'var counter = 0');
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, index) => run(handle, `console.log("call ${index}"); await null; counter += 1; [${index}, counter]`)),
    );
    results.forEach((result, index) => {
      expect(result.error).toBeNull();
      expect(result.logs).toEqual([`call ${index}`]);
      expect(result.value).toBe(`[ ${index}, ${index + 1} ]`);
    });
  });
});

// The shared suite, declared with the isolate's one capability: only the backend-neutral lifecycle parts apply.
describe.skipIf(!available)('isolate backend, shared suite', () => {
  describeSandboxConformance('isolate', () => loadProvider('isolate'), { backend: 'isolate' }, ['javascript']);
});
