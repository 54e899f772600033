/**
 * Issue 10's "Done when", as a new user would do it. corral is packed (npm pack) and installed globally from the
 * tarball into a scratch prefix; an environment with its own tool, a setup hook and env args (examples/env-package)
 * is written into an empty folder with no package.json and run with `corral eval`; the same environment, packed as
 * an npm package, installs by name from its tarball (`corral env install`), is listed, shown, evaluated by name,
 * and served by `corral serve --env`, where the Python client drives rollouts (scripted model) and episodes.
 * npm uses a scratch cache; every package comes from a tarball (the registry is only asked about corral's own
 * dependencies). A checkout run (`node bin/corral.mjs`) imports corral from an arbitrary folder too.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ModelReply, startScriptedModelServer } from '../../src/testing/index.js';
import { NPM_CACHE, packedCorralTarball } from '../helpers/packed-corral.js';
import { python3Available } from '../helpers/test-gates.js';

const execFileAsync = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const EXAMPLE = join(ROOT, 'examples', 'env-package');
const INSTALL_TIMEOUT_MS = 900_000;
const hasPython = python3Available();

let work = '';
let globalCorral = '';
let cacheDir = '';
let vaultTarball = '';
let corralTarball = '';

const childEnvironment = (extra: Record<string, string> = {}) => ({
  ...process.env,
  CORRAL_MIN_IDLE: '0',
  CORRAL_CACHE_DIR: cacheDir,
  npm_config_cache: NPM_CACHE,
  ...extra,
});

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a CLI from `cwd`; never throws. */
async function run(command: string, args: string[], cwd: string, extraEnvironment: Record<string, string> = {}): Promise<Outcome> {
  try {
    const { stdout, stderr } = await execFileAsync(command, args, { cwd, env: childEnvironment(extraEnvironment), maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

const corral = (args: string[], cwd: string, extraEnvironment: Record<string, string> = {}) => run(globalCorral, args, cwd, extraEnvironment);

/** A folder holding nothing but the example environment's two modules: no package.json, no node_modules. */
function userFolder(name: string, manifest?: Record<string, unknown>): string {
  const folder = join(work, name);
  mkdirSync(folder, { recursive: true });
  for (const file of ['index.ts', 'agents.ts']) copyFileSync(join(EXAMPLE, file), join(folder, file));
  if (manifest) writeFileSync(join(folder, 'package.json'), JSON.stringify(manifest));
  return folder;
}

interface VaultRecord {
  example_id: string;
  reward: number;
  metrics: Record<string, number>;
  answer: unknown;
  final_answer: string | null;
  error?: unknown;
}

const readRecords = (directory: string) =>
  readFileSync(join(directory, 'results.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as VaultRecord);
const readMetadata = (directory: string) => JSON.parse(readFileSync(join(directory, 'metadata.json'), 'utf8')) as Record<string, unknown>;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'corral-env-packages-'));
  cacheDir = join(work, 'cache');
  const tarball = await packedCorralTarball();
  corralTarball = tarball;
  const prefix = join(work, 'global');
  // Scripts off: nothing here needs a native build (isolated-vm stays unbuilt, ssh2 uses its JavaScript crypto), and
  // esbuild, which tsx needs for .ts modules, comes as a prebuilt optional dependency.
  await execFileAsync('npm', ['install', '--global', '--prefix', prefix, tarball, '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts'], {
    env: childEnvironment(),
    maxBuffer: 64 * 1024 * 1024,
  });
  globalCorral = join(prefix, 'bin', 'corral');
  await execFileAsync('npm', ['pack', '--pack-destination', work], { cwd: EXAMPLE, env: childEnvironment() });
  vaultTarball = join(
    work,
    readdirSync(work).find((name) => name.startsWith('corral-env-vault-') && name.endsWith('.tgz'))!,
  );
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('an environment module in an empty folder, run by a globally installed corral', () => {
  it("imports defineEnvironment, defineTool and z from 'corral' in a .ts with no package.json: setup, the custom tool and env args work", async () => {
    const folder = userFolder('empty-folder');
    const out = join(work, 'runs', 'module-solver');
    const args = [
      'eval',
      './index.ts',
      '--agent',
      'solver',
      '--env-args',
      '{"words":2,"prefix":"opal"}',
      '--backend',
      'process',
      '--no-progress',
      '--out',
      out,
    ];
    const result = await corral(args, folder);
    expect(result.code, result.stderr).toBe(0);
    const records = readRecords(out).sort((a, b) => a.example_id.localeCompare(b.example_id));
    // The env args reached the dataset (2 vaults, opal-*); setup wrote each secret; the unlock tool read it back.
    expect(records.map((record) => [record.example_id, record.answer, record.final_answer, record.reward, record.metrics.attempts])).toEqual([
      ['vault-0', 'opal-0', 'unlocked', 1, 1],
      ['vault-1', 'opal-1', 'unlocked', 1, 1],
    ]);
    const source = readMetadata(out).env_source;
    const modulePath = join(folder, 'index.ts');
    expect(source).toEqual({ kind: 'module', path: modulePath, sha256: createHash('sha256').update(readFileSync(modulePath)).digest('hex'), package: null });
  });

  it('the guessing agent scores 0 through the same custom tool (the rubric reads the per-rollout state)', async () => {
    const folder = userFolder('empty-folder');
    const out = join(work, 'runs', 'module-guesser');
    const result = await corral(['eval', './index.ts', '--agent', 'guesser', '--backend', 'process', '--no-progress', '--out', out], folder);
    expect(result.code, result.stderr).toBe(0);
    const records = readRecords(out);
    expect(records).toHaveLength(3);
    for (const record of records) expect(record).toMatchObject({ reward: 0, final_answer: 'wrong word', metrics: { attempts: 1 } });
  });

  it('loads the same .ts under a package.json that names no "type", and reports the enclosing package in env_source', async () => {
    const folder = userFolder('untyped-package', { name: 'my-untyped-envs', version: '0.2.0' });
    const out = join(work, 'runs', 'module-untyped');
    const result = await corral(
      ['eval', join(folder, 'index.ts'), '--agent', 'solver', '-n', '1', '--backend', 'process', '--no-progress', '--out', out],
      work,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(readRecords(out)).toEqual([expect.objectContaining({ reward: 1 })]);
    expect(readMetadata(out).env_source).toMatchObject({ kind: 'module', package: { name: 'my-untyped-envs', version: '0.2.0', path: folder } });
  });
});

describe('a folder made by `npm init -y` (npm 11 writes "type": "commonjs"), with corral installed there from the tarball', () => {
  it('loads index.ts as an ES module whatever the package.json says: its local corral evaluates it', async () => {
    const folder = join(work, 'npm-init-folder');
    mkdirSync(folder, { recursive: true });
    const init = await run('npm', ['init', '-y'], folder);
    expect(init.code, init.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'))).toMatchObject({ type: 'commonjs' });
    // No registry answers here: corral's dependencies come from the npm cache the global install above filled.
    const install = await run('npm', ['install', corralTarball, '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'], folder);
    expect(install.code, install.stderr).toBe(0);
    for (const file of ['index.ts', 'agents.ts']) copyFileSync(join(EXAMPLE, file), join(folder, file));
    const out = join(work, 'runs', 'npm-init');
    const result = await run(
      join(folder, 'node_modules', '.bin', 'corral'),
      ['eval', './index.ts', '--agent', 'solver', '-n', '1', '--backend', 'process', '--no-progress', '--out', out],
      folder,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(readRecords(out)).toEqual([expect.objectContaining({ reward: 1, final_answer: 'unlocked' })]);
  });
});

describe('the same environment as an npm package, installed by name', () => {
  it('corral env install <tarball> pins it; env list shows it beside the built-ins with its version and source', async () => {
    const install = await corral(['env', 'install', vaultTarball], work);
    expect(install.code, install.stderr).toBe(0);
    expect(install.stdout).toContain(`installed corral-env-vault@1.0.0 from ${vaultTarball}`);
    const manifest = JSON.parse(readFileSync(join(cacheDir, 'environment-packages', 'corral-env-vault', 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(Object.keys(manifest.dependencies)).toEqual(['corral-env-vault']);
    const list = await corral(['env', 'list', '--json'], work);
    expect(list.code, list.stderr).toBe(0);
    const { environments } = JSON.parse(list.stdout) as { environments: { name: string; version: string; kind: string; source: string; integrity?: string }[] };
    expect(environments.filter((row) => row.kind === 'built-in').map((row) => row.name)).toEqual(expect.arrayContaining(['wiki-search', 'python-code']));
    expect(environments.find((row) => row.kind === 'package')).toMatchObject({
      name: 'corral-env-vault',
      version: '1.0.0',
      source: vaultTarball,
      integrity: expect.stringMatching(/^sha512-/),
    });
  });

  it('corral env show lists its own tool, the JSON Schema of its env args, limits and the example count', async () => {
    const show = await corral(['env', 'show', 'corral-env-vault', '--json'], work);
    expect(show.code, show.stderr).toBe(0);
    const summary = JSON.parse(show.stdout) as Record<string, unknown>;
    expect(summary).toMatchObject({
      name: 'vault',
      toolsets: ['files'],
      tools: [{ name: 'unlock', description: expect.stringContaining('vault') }],
      max_turns: 4,
      examples: 3,
      source: { kind: 'package', name: 'corral-env-vault', version: '1.0.0' },
    });
    expect(summary.args_schema).toMatchObject({
      type: 'object',
      properties: { words: { type: 'integer', default: 3 }, prefix: { type: 'string', default: 'amber' } },
    });
  });

  it('corral eval <package name> runs it and metadata.json names the package, version, folder and integrity', async () => {
    const out = join(work, 'runs', 'package-solver');
    const result = await corral(
      ['eval', 'corral-env-vault', '--agent', 'solver', '--env-args', '{"words":2}', '--backend', 'process', '--no-progress', '--out', out],
      work,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(readRecords(out).map((record) => record.reward)).toEqual([1, 1]);
    const metadata = readMetadata(out);
    expect(metadata.command).toMatchObject({ env: 'corral-env-vault' });
    expect(metadata.env_source).toMatchObject({
      kind: 'package',
      name: 'corral-env-vault',
      version: '1.0.0',
      path: join(cacheDir, 'environment-packages', 'corral-env-vault', 'node_modules', 'corral-env-vault'),
      installed_from: vaultTarball,
      integrity: expect.stringMatching(/^sha512-/),
      module_sha256: createHash('sha256')
        .update(readFileSync(join(EXAMPLE, 'index.ts')))
        .digest('hex'),
    });
  });

  it('refuses, with typed errors, a package that is no environment (and keeps nothing of it), a missing tarball and a broken one', async () => {
    const plain = join(work, 'plain-package');
    mkdirSync(plain, { recursive: true });
    writeFileSync(join(plain, 'package.json'), JSON.stringify({ name: 'plain-package', version: '1.0.0' }));
    writeFileSync(join(plain, 'index.js'), 'export default 1;\n');
    const notEnvironment = await corral(['env', 'install', plain], work);
    expect(notEnvironment.code).toBe(2);
    expect(notEnvironment.stderr).toMatch(/corral: ENV_ERR_NOT_ENVIRONMENT_PACKAGE: .*plain-package is not an environment package/);
    expect(readdirSync(join(cacheDir, 'environment-packages')).filter((name) => !name.startsWith('.') && !name.endsWith('.json'))).toEqual([
      'corral-env-vault',
    ]);
    const missing = await corral(['env', 'install', './no-such-env-1.0.0.tgz'], work);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('ENV_ERR_NOT_FOUND');
    const broken = join(work, 'corral-env-broken-1.0.0.tgz');
    writeFileSync(broken, 'this is not a gzip file');
    const failed = await corral(['env', 'install', broken], work);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toMatch(/corral: ENV_ERR_INSTALL_FAILED: installing .*: npm install exited \d+:\n(.*\n)*npm error code TAR_BAD_ARCHIVE/);
  });
});

describe('a corral-env-* name not installed yet', () => {
  it('corral eval <name> refuses it with the command to run; corral env install <name> fetches it from the registry, pinned and recorded', async () => {
    const registry = await startTarballRegistry('corral-env-vault', '1.0.0', vaultTarball);
    const environment = { CORRAL_CACHE_DIR: join(work, 'cache-first-use'), npm_config_registry: registry.url };
    try {
      const out = join(work, 'runs', 'first-use');
      const args = ['eval', 'corral-env-vault', '--agent', 'solver', '-n', '1', '--backend', 'process', '--no-progress', '--out', out];
      const refused = await corral(args, work, environment);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('run `corral env install corral-env-vault`');
      const install = await corral(['env', 'install', 'corral-env-vault'], work, environment);
      expect(install.code, install.stderr).toBe(0);
      const outcome = await corral(args, work, environment);
      expect(outcome.code, outcome.stderr).toBe(0);
      expect(readRecords(out)).toEqual([expect.objectContaining({ reward: 1 })]);
      expect(readMetadata(out).env_source).toMatchObject({
        kind: 'package',
        version: '1.0.0',
        installed_from: 'corral-env-vault',
        // The integrity of the tarball the registry served names exactly what ran (npm's lockfile may omit resolved).
        integrity: registry.integrity,
      });
      const manifest = JSON.parse(readFileSync(join(work, 'cache-first-use', 'environment-packages', 'corral-env-vault', 'package.json'), 'utf8')) as {
        dependencies: Record<string, string>;
      };
      expect(manifest.dependencies).toEqual({ 'corral-env-vault': '1.0.0' });
    } finally {
      await registry.close();
    }
  });
});

describe('served by corral serve --env <package name>, driven by the Python client', () => {
  it.skipIf(!hasPython)('runs rollouts (scripted model) and an episode (setup, custom tool, score, delete) of the installed package', async () => {
    const model = await startScriptedModelServer(vaultScript);
    const server = await startServe(['--env', 'corral-env-vault'], work);
    try {
      const driver = join(work, 'drive_vault.py');
      writeFileSync(driver, PYTHON_DRIVER);
      const result = await execFileAsync('python3', [driver], {
        env: { ...childEnvironment(), PYTHONPATH: join(ROOT, 'clients', 'python'), CORRAL_URL: server.baseUrl, MODEL_URL: model.baseURL },
        maxBuffer: 16 * 1024 * 1024,
      });
      const report = JSON.parse(result.stdout) as { rollouts: { example_id: string; reward: number }[]; episode: Record<string, unknown> };
      expect(report.rollouts.map((record) => [record.example_id, record.reward]).sort()).toEqual([
        ['vault-0', 1],
        ['vault-1', 1],
      ]);
      expect(report.episode).toMatchObject({ tools: expect.arrayContaining(['unlock', 'read_file']), wrong: 'wrong word', right: 'unlocked', reward: 1 });
    } finally {
      await server.stop();
      await model.close();
    }
  });
});

describe('a checkout run', () => {
  it("node bin/corral.mjs evaluates a module in an arbitrary folder that imports 'corral' (the sources, through tsx)", async () => {
    const folder = userFolder('checkout-folder');
    const out = join(work, 'runs', 'checkout');
    const result = await run(
      process.execPath,
      [join(ROOT, 'bin', 'corral.mjs'), 'eval', './index.ts', '--agent', 'solver', '-n', '1', '--backend', 'process', '--no-progress', '--out', out],
      folder,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(readRecords(out)).toEqual([expect.objectContaining({ reward: 1, final_answer: 'unlocked' })]);
  });
});

/**
 * The two requests npm makes for a package: its packument (GET /<name>) and the tarball it names. Other names
 * (npm also asks about the optional peer, corral) are 404, as on the public registry. This is the npm registry
 * protocol served from a real tarball on loopback, since the test must not publish anywhere.
 */
async function startTarballRegistry(name: string, version: string, tarballPath: string): Promise<{ url: string; integrity: string; close(): Promise<void> }> {
  const tarball = readFileSync(tarballPath);
  const integrity = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
  const server = createServer((request, response) => {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const tarballUrl = `${base}${name}/-/${name}-${version}.tgz`;
    if (request.url === `/${name}`) {
      const manifest = JSON.parse(readFileSync(join(EXAMPLE, 'package.json'), 'utf8')) as Record<string, unknown>;
      const versionDocument = {
        ...manifest,
        name,
        version,
        dist: { tarball: tarballUrl, integrity, shasum: createHash('sha1').update(tarball).digest('hex') },
      };
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ name, 'dist-tags': { latest: version }, versions: { [version]: versionDocument } }));
    } else if (request.url === new URL(tarballUrl).pathname) {
      response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(tarball);
    } else {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
    }
  });
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    integrity,
    close: () => new Promise<void>((resolveClose) => server.close(() => resolveClose())),
  };
}

/** A model that reads the secret, then unlocks with it, then answers: decided from the conversation so far. */
function vaultScript(request: { messages: { role: string; content?: unknown; tool_call_id?: string }[] }): ModelReply {
  const toolMessages = request.messages.filter((message) => message.role === 'tool');
  if (toolMessages.length === 0) return { kind: 'tool-calls', toolCalls: [{ id: 'read', name: 'read_file', arguments: { path: 'vault/secret.txt' } }] };
  if (toolMessages.length === 1) {
    const text = String(toolMessages[0]!.content ?? '');
    const word = text.trim().split('\n').pop()!.trim();
    return { kind: 'tool-calls', toolCalls: [{ id: 'unlock', name: 'unlock', arguments: { word } }] };
  }
  return { kind: 'text', content: String(toolMessages[1]!.content ?? '') };
}

const PYTHON_DRIVER = `
import json, os
from corral_client import CorralClient

client = CorralClient(os.environ["CORRAL_URL"])
records = list(client.rollouts("vault", {"base_url": os.environ["MODEL_URL"], "model": "scripted"}, example_ids=["vault-0", "vault-1"]))
with client.episode("vault", example_id="vault-1", env_args={"prefix": "jade"}) as episode:
    tools = [tool["function"]["name"] for tool in episode.tools]
    wrong = episode.call_tool("unlock", {"word": "nope"})["text"]
    right = episode.call_tool("unlock", {"word": "jade-1"})["text"]
    scored = episode.score("unlocked")
print(json.dumps({
    "rollouts": [{"example_id": r["example_id"], "reward": r["reward"]} for r in records],
    "episode": {"tools": tools, "wrong": wrong, "right": right, "reward": scored["reward"]},
}))
`;

async function startServe(extraArgs: string[], cwd: string): Promise<{ baseUrl: string; stop(): Promise<number | null> }> {
  const child: ChildProcess = spawn(globalCorral, ['serve', '--host', '127.0.0.1', '--port', '0', '--backend', 'process', ...extraArgs], {
    cwd,
    env: childEnvironment(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
  try {
    await expect
      .poll(() => /listening on (http:\/\/\S+)/.exec(stderr)?.[1] ?? (child.exitCode !== null ? `exited: ${stderr}` : undefined), { timeout: 60_000 })
      .toBeDefined();
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  const baseUrl = /listening on (http:\/\/\S+)/.exec(stderr)?.[1];
  if (!baseUrl) throw new Error(`corral serve did not start: ${stderr}`);
  return {
    baseUrl,
    async stop() {
      child.kill('SIGTERM');
      const code = await exited;
      return code;
    },
  };
}
