/**
 * `corral --version` and `corral --help` start without importing any command's module or its heavy dependencies
 * (read from Node's own ESM loader log, NODE_DEBUG=esm, of the real CLI), and `corral <command> --help` still
 * loads that command and shows its full options. Timing lives in `corral bench cli`, never in a test.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CLI, ROOT, childEnvironment } from './runner-cli.js';

const execFileAsync = promisify(execFile);
const HEAVY = /\/node_modules\/(fastify|dockerode|@modelcontextprotocol|bullmq|ioredis|zod|undici|ws|minisearch)\//;

/**
 * Runs the CLI with Node's ESM debug log on and returns its output and every module URL it loaded, a compiled
 * dist/src/x.js named as its source src/x.ts (the suite runs the CLI from dist/ when it matches src/, vitest.config.ts).
 */
async function loadedModules(args: string[]): Promise<{ stdout: string; modules: string[] }> {
  const { stdout, stderr } = await execFileAsync(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    env: childEnvironment({ NODE_DEBUG: 'esm' }),
    maxBuffer: 64 << 20,
  });
  const modules = [...stderr.matchAll(/Storing (file:\/\/\S+)/g)].map((match) => match[1]!.replace(/\/dist\/src\/(.*)\.js$/, '/src/$1.ts'));
  return { stdout, modules };
}

const commandModules = (modules: string[]) => modules.filter((url) => /\/src\/cli\/(commands|eval|runtime)\//.test(url));

describe('CLI start-up', () => {
  it('`corral --version` imports no command module, no heavy dependency and not the config schema', async () => {
    const { stdout, modules } = await loadedModules(['--version']);
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(modules.some((url) => url.endsWith('/src/cli/main.ts'))).toBe(true);
    expect(commandModules(modules)).toEqual([]);
    expect(modules.filter((url) => HEAVY.test(url))).toEqual([]);
  }, 120_000);

  it('`corral --help` lists every command and imports no command module', async () => {
    const { stdout, modules } = await loadedModules(['--help']);
    expect(stdout).toMatch(/serve \[options\]/);
    expect(stdout).toMatch(/Environment variables/);
    expect(commandModules(modules)).toEqual([]);
    expect(modules.filter((url) => /\/node_modules\/(fastify|dockerode|@modelcontextprotocol|bullmq|ioredis)\//.test(url))).toEqual([]);
  }, 120_000);

  it('`corral serve --help` loads serve and shows its full options', async () => {
    const { stdout, modules } = await loadedModules(['serve', '--help']);
    expect(stdout).toMatch(/Usage: corral serve \[options\]/);
    expect(stdout).toMatch(/--port/);
    expect(commandModules(modules).some((url) => url.endsWith('/src/cli/commands/serve.ts'))).toBe(true);
    expect(commandModules(modules).some((url) => url.endsWith('/src/cli/commands/eval.ts'))).toBe(false);
  }, 120_000);
});
