/**
 * The disk wiki index across processes: `corral wiki index` (the real CLI) builds it, and two processes opening it
 * the way serve and workers do answer the same wiki tool calls identically (and as the in-memory index would); a
 * process without better-sqlite3 gets a typed error naming the install command.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const execFileAsync = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
const fixtures = join(root, 'test/fixtures/wiki');
const child = join(root, 'test/helpers/wiki-disk-index-child.ts');
const queries = ['What do otters eat?', 'lighthouse keepers wicks', 'Japanese navy guns', 'glacier ice'];
let directory: string;
let indexDirectory: string;

interface ChildAnswer {
  pid: number;
  backend: string;
  answers: unknown[];
}

async function runChild(corpus: string[], nodeArguments: string[] = []): Promise<ChildAnswer> {
  const { stdout } = await execFileAsync(process.execPath, [...nodeArguments, '--import', 'tsx/esm', child, JSON.stringify({ corpus, queries })], {
    cwd: root,
  });
  return JSON.parse(stdout) as ChildAnswer;
}

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'corral-disk-processes-'));
  indexDirectory = join(directory, 'index');
  const { stdout } = await execFileAsync(
    process.execPath,
    [join(root, 'bin/corral.mjs'), 'wiki', 'index', join(fixtures, 'pages.jsonl'), '--out', indexDirectory, '--no-progress'],
    {
      cwd: root,
    },
  );
  expect(stdout).toMatch(/indexed 5 pages, \d+ passages/);
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('one disk index, several processes', () => {
  it('two processes open the same file and answer the same calls identically, as the in-memory index does', async () => {
    const [first, second, inMemory] = await Promise.all([runChild([indexDirectory]), runChild([indexDirectory]), runChild([join(fixtures, 'pages.jsonl')])]);
    expect(first.pid).not.toBe(second.pid);
    expect([first.backend, second.backend, inMemory.backend]).toEqual(['disk', 'disk', 'memory']);
    expect(second.answers).toEqual(first.answers);
    expect(first.answers).toEqual(inMemory.answers);
    expect(JSON.stringify(first.answers)).toContain('river_otter');
  });

  it('without better-sqlite3, opening the index is WIKI_ERR_SQLITE_UNAVAILABLE naming `npm install better-sqlite3@12.11.1`', async () => {
    // A resolve hook that answers for better-sqlite3 what Node answers for a package that is not installed.
    const hook = `export async function resolve(specifier, context, next) { if (specifier === 'better-sqlite3') { const error = new Error("Cannot find package 'better-sqlite3' imported from " + context.parentURL); error.code = 'ERR_MODULE_NOT_FOUND'; throw error; } return next(specifier, context); }`;
    const register = `import { register } from 'node:module'; register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));`;
    const failure = await runChild([indexDirectory], ['--import', `data:text/javascript,${encodeURIComponent(register)}`]).then(
      () => null,
      (error: { stderr: string }) => error.stderr,
    );
    expect(failure).toContain('WIKI_ERR_SQLITE_UNAVAILABLE');
    expect(failure).toContain('npm install better-sqlite3@12.11.1');
  });
});
