/**
 * Authoring from nothing, as a new user does it with the real CLI: `corral env init <dir>` writes an environment
 * whose model-free agents (defineAgent) run under `corral eval` out of the box, the reference scoring 1 and the
 * floor 0; and an agent that misuses the agent API errors its rollouts with AGENT_ERR_MISUSE and a message that
 * says what to write, never RUNNER_ERR_UNEXPECTED ("a corral bug").
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendAvailable } from '../helpers/backend-gate.js';
import { CLI, readResults } from './runner-cli.js';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);
const processBackend = await backendAvailable('process');
let work = '';

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'corral-env-init-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** `corral <args>` from `cwd`; never throws. */
async function corral(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [CLI, ...args], {
      cwd,
      env: { ...process.env, CORRAL_MIN_IDLE: '0', CORRAL_CACHE_DIR: join(work, 'cache') },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe.skipIf(!processBackend)('corral env init', () => {
  it('scaffolds an environment whose reference agent scores 1 and floor 0 with corral eval, and refuses to overwrite it', async () => {
    const folder = join(work, 'my-env');
    const init = await corral(['env', 'init', folder], work);
    expect(init.code, init.stderr).toBe(0);
    for (const file of ['package.json', 'index.ts', 'agents.ts', 'README.md']) expect(existsSync(join(folder, file))).toBe(true);
    expect(JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'))).toMatchObject({
      name: 'my-env',
      type: 'module',
      corral: { environment: './index.ts' },
      scripts: { test: expect.stringContaining('corral eval ./index.ts --agent reference') },
    });
    for (const [agent, reward] of [
      ['reference', 1],
      ['floor', 0],
    ] as const) {
      const out = join(work, 'runs', agent);
      const run = await corral(['eval', './index.ts', '--agent', agent, '--backend', 'process', '--no-progress', '--out', out], folder);
      expect(run.code, run.stderr).toBe(0);
      const records = readResults(out);
      expect(records.length).toBeGreaterThan(0);
      for (const record of records) expect(record).toMatchObject({ reward, error: null });
    }
    const again = await corral(['env', 'init', folder], work);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/ENV_ERR_INIT_EXISTS: .*index\.ts/);
  });

  it('an agent that misuses the agent API errors its rollouts with AGENT_ERR_MISUSE saying what to write', async () => {
    const folder = join(work, 'misuse');
    const init = await corral(['env', 'init', folder], work);
    expect(init.code, init.stderr).toBe(0);
    writeFileSync(
      join(folder, 'agents.ts'),
      `import { defineAgent } from 'corral';
export const agents = {
  typo: defineAgent({ name: 'typo', async run({ callTool, answer }) { await callTool('lookup_capital', { country: 'France' }); answer('x'); } }),
  guessed: () => ({ name: 'guessed', model: 'guessed', async run({ recorder }) { await recorder.callTool('lookup', { country: 'France' }); } }),
};
`,
    );
    for (const [agent, message] of [
      ['typo', /tool "lookup_capital", which this environment does not have; its tools are lookup/],
      ['guessed', /recorder\.callTool\(tools, call, turn, abortSignal\).*defineAgent/],
    ] as const) {
      const out = join(work, 'runs', `misuse-${agent}`);
      const run = await corral(['eval', './index.ts', '--agent', agent, '-n', '1', '--backend', 'process', '--no-progress', '--out', out], folder);
      expect(run.code).not.toBe(0);
      const [record] = readResults(out);
      expect(record?.error).toMatchObject({ boundary: 'environment', code: 'AGENT_ERR_MISUSE', message: expect.stringMatching(message) });
    }
  });
});
