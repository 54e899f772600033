/**
 * The package as a user gets it: `npm pack` of this checkout (its prepack builds dist/), installed from the
 * tarball into an empty folder with its dependencies from the npm registry, then run with nothing but what was
 * installed. One install per run; the npm cache lives under the OS temp dir, so later runs are quicker.
 *
 * The install omits optional dependencies, so isolated-vm and better-sqlite3 (the two native modules) are
 * deterministically absent: that proves they are optional (a plain dependency would still be installed) and shows
 * what the isolate backend then says.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NPM_CACHE, packedCorralTarball } from '../helpers/packed-corral.js';

const execFileAsync = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const FIXTURES = join(ROOT, 'test', 'fixtures', 'runner');
const INSTALL_TIMEOUT_MS = 900_000;

let work = '';
let app = '';
let installed = '';

const childEnvironment = (extra: Record<string, string> = {}) => ({ ...process.env, CORRAL_MIN_IDLE: '0', npm_config_cache: NPM_CACHE, ...extra });

async function npm(args: string[], cwd: string): Promise<string> {
  const { stdout } = await execFileAsync('npm', args, { cwd, env: childEnvironment(), maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

/** Runs the installed bin (through node_modules/.bin, as npm linked it) from the app folder; never throws. */
async function corral(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [join(app, 'node_modules', '.bin', 'corral'), ...args], {
      cwd: app,
      env: childEnvironment(),
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'corral-package-'));
  // One pack per content, shared with the other e2e files that install the tarball (test/helpers/packed-corral.ts).
  const tarball = await packedCorralTarball();
  app = join(work, 'app');
  await mkdir(app);
  await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'corral-install-check', private: true, type: 'module' }));
  await npm(['install', tarball, '--no-audit', '--no-fund', '--omit=optional'], app);
  installed = join(app, 'node_modules', 'corral');
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('corral installed from its npm pack tarball', () => {
  it('ships the bin, the compiled src, the agent, images and docs, and nothing of the checkout', () => {
    for (const shipped of [
      'bin/corral.mjs',
      'dist/src/cli/main.js',
      'dist/src/index.js',
      'sandboxes/agent/agent.py',
      'images',
      'docs/architecture.md',
      'README.md',
    ]) {
      expect(existsSync(join(installed, shipped)), shipped).toBe(true);
    }
    for (const absent of ['src', 'test', 'benchmarks', 'scripts', '.ci', 'dist/benchmarks', 'dist/src/bench', 'dist/test']) {
      expect(existsSync(join(installed, absent)), absent).toBe(false);
    }
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      optionalDependencies?: Record<string, string>;
    };
    expect(manifest.optionalDependencies).toEqual({ 'better-sqlite3': '12.11.1', 'isolated-vm': '5.0.4' });
    for (const native of ['isolated-vm', 'better-sqlite3']) {
      expect(manifest.dependencies).not.toHaveProperty(native);
      expect(existsSync(join(app, 'node_modules', native)), native).toBe(false);
    }
  });

  it('npx corral --help works (--no-install: the local bin, never a registry package of that name)', async () => {
    const { stdout } = await execFileAsync('npx', ['--no-install', 'corral', '--help'], { cwd: app, env: childEnvironment() });
    expect(stdout).toContain('Usage: corral');
    for (const command of ['doctor', 'serve', 'eval', 'bench']) expect(stdout).toContain(command);
  });

  it('corral doctor prints a line per backend; the isolate line names the install command for isolated-vm', async () => {
    const { stdout } = await corral(['doctor']);
    const lines = stdout.split('\n');
    for (const backend of ['docker', 'process', 'isolate'])
      expect(
        lines.some((line) => new RegExp(`^(ok  |FAIL) ${backend} `).test(line)),
        stdout,
      ).toBe(true);
    const isolate = lines.find((line) => / isolate /.test(line))!;
    expect(isolate).toMatch(/^FAIL/);
    expect(isolate).toContain('npm install isolated-vm@5.0.4');
  });

  it('corral serve --port 0 starts and answers /healthz', async () => {
    const child = spawn(process.execPath, [join(app, 'node_modules', '.bin', 'corral'), 'serve', '--host', '127.0.0.1', '--port', '0'], {
      cwd: app,
      env: childEnvironment({ CORRAL_BACKEND: 'process' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
    try {
      await expect.poll(() => /listening on (http:\/\/\S+)/.exec(stderr)?.[1], { timeout: 60_000 }).toBeDefined();
      const baseUrl = /listening on (http:\/\/\S+)/.exec(stderr)![1]!;
      expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('corral eval wiki-search with the baseline agent writes a scored results.jsonl', async () => {
    const out = join(work, 'wiki-run');
    const args = ['eval', 'wiki-search', '--agent', 'baseline', '--backend', 'process', '--no-progress'];
    const result = await corral([...args, '--corpus', join(FIXTURES, 'tiny-pages.jsonl'), '--questions', join(FIXTURES, 'tiny-questions.jsonl'), '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    const records = readFileSync(join(out, 'results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { task: string; reward: number });
    const questionCount = readFileSync(join(FIXTURES, 'tiny-questions.jsonl'), 'utf8').trim().split('\n').length;
    expect(records).toHaveLength(questionCount);
    for (const record of records) expect(record).toMatchObject({ task: 'wiki-search', reward: expect.any(Number) });
  });

  it("loads a user's environment module written in TypeScript (why tsx stays a dependency)", async () => {
    const module = join(app, 'echo-env.ts');
    await writeFile(
      module,
      [
        "import { defineEnvironment, type Agent, type AgentRunInput } from 'corral';",
        'class Echo implements Agent {',
        "  readonly name: string = 'echo';",
        "  readonly model: string = 'echo';",
        "  async run({ example, recorder }: AgentRunInput): Promise<void> { recorder.startTurn(); recorder.message({ role: 'assistant', content: example.prompt as string }); recorder.answer(example.prompt as string); }",
        '}',
        'export default defineEnvironment({',
        "  name: 'echo-user', description: 'Answers must repeat the prompt.', toolsets: ['python'], systemPrompt: 'Repeat the user message.',",
        "  dataset: () => [{ id: 'e1', prompt: 'hello', answer: 'hello' }],",
        "  rubric: [{ name: 'echo', weight: 1, score: ({ example, trajectory }) => (trajectory.answer === example.answer ? 1 : 0) }],",
        '});',
        'export const agents = { echo: () => new Echo() };',
      ].join('\n'),
    );
    const out = join(work, 'echo-run');
    const result = await corral(['eval', module, '--agent', 'echo', '--backend', 'process', '--no-progress', '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    const [record] = readFileSync(join(out, 'results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { reward: number });
    expect(record).toMatchObject({ reward: 1 });
  });

  it("imports corral/testing through the package's exports: the scripted model server answers over HTTP, the wiki index searches", async () => {
    const check = join(app, 'testing-check.mjs');
    await writeFile(
      check,
      [
        "import { smallWikiIndex, startScriptedModelServer } from 'corral/testing';",
        "const server = await startScriptedModelServer(() => ({ kind: 'text', content: 'scripted hello' }));",
        'try {',
        "  const response = await fetch(`${server.baseURL}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }) });",
        '  const body = await response.json();',
        "  console.log(JSON.stringify({ reply: body.choices[0].message.content, recorded: server.requests.length, topHit: smallWikiIndex().search('river Cairo')[0]?.page_id }));",
        '} finally {',
        '  await server.close();',
        '}',
      ].join('\n'),
    );
    const { stdout } = await execFileAsync(process.execPath, [check], { cwd: app, env: childEnvironment() });
    expect(JSON.parse(stdout)).toEqual({ reply: 'scripted hello', recorded: 1, topHit: 'nile' });
  });

  it('corral bench says in one line that benchmarks need a checkout, and exits 2', async () => {
    for (const args of [['bench'], ['bench', 'sandbox', '--json']]) {
      const result = await corral(args);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      const lines = result.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^corral: CLI_ERR_NEEDS_CHECKOUT: benchmarks run from a corral checkout/);
    }
  });
});
