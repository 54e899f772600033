/** Edge cases of the agent's ops, against the real agent run unsandboxed as a plain child process. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CorralError } from '../../../../src/core/errors.js';
import { agentDirectoryPath } from '../../../../src/sandbox/agent-client/agent-directory.js';
import { AgentConnection } from '../../../../src/sandbox/agent-client/agent-connection.js';

let child: ChildProcessWithoutNullStreams;
let connection: AgentConnection;
let root: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'corral-agent-operations-'));
  const args = [
    '-u',
    '-B',
    `${agentDirectoryPath()}/agent.py`,
    '--workspace',
    join(root, 'workspace'),
    '--process-scope',
    'descendants',
    '--scratch-dir',
    join(root, 'none'),
  ];
  child = spawn('python3', args, { stdio: ['pipe', 'pipe', 'pipe'] });
  connection = new AgentConnection({
    writable: child.stdin,
    readable: child.stdout,
    sandboxId: 'sbx_ops',
    backend: 'process',
    workspace: join(root, 'workspace'),
  });
  await connection.ready({ timeoutMs: 20_000 });
});

afterAll(() => {
  connection.close();
  child.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

async function errorCode(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'resolved',
    (error: unknown) => (CorralError.isInstance(error) ? error.code : String(error)),
  );
}

describe('agent operations', () => {
  it('globs with braces and character classes, sorted, with a result cap', async () => {
    const files = connection.session.files;
    for (const name of ['a.ts', 'b.js', 'c.py', 'lib/d.ts']) await files.write({ path: `globbing/${name}`, content: name });
    expect(await files.glob({ pattern: '**/*.{ts,js}', path: 'globbing' })).toEqual(['globbing/a.ts', 'globbing/b.js', 'globbing/lib/d.ts']);
    expect(await files.glob({ pattern: '[ab].*', path: 'globbing' })).toEqual(['globbing/a.ts', 'globbing/b.js']);
    expect(await files.glob({ pattern: '**', path: 'globbing', maxResults: 2 })).toHaveLength(2);
  });

  it('rejects a bad regular expression as an invalid argument', async () => {
    expect(await errorCode(connection.session.files.grep({ pattern: '(' }))).toBe('SBX_ERR_INVALID_ARGUMENT');
  });

  it('writes through a symlink that stays inside the workspace', async () => {
    await connection.session.exec({ command: 'mkdir -p real && ln -sfn real alias' });
    await connection.session.files.write({ path: 'alias/through.txt', content: 'inside' });
    expect((await connection.session.files.read({ path: 'real/through.txt' }))?.content).toBe('inside');
  });

  it('refuses to read a FIFO or a directory instead of hanging', async () => {
    await connection.session.exec({ command: 'mkfifo pipe-file' });
    expect(await errorCode(connection.session.files.read({ path: 'pipe-file' }))).toBe('SBX_ERR_INVALID_ARGUMENT');
    expect(await errorCode(connection.session.files.read({ path: '.' }))).toBe('SBX_ERR_INVALID_ARGUMENT');
  });

  it('refuses to edit a file that is not UTF-8', async () => {
    await connection.session.files.write({ path: 'latin1.txt', content: Buffer.from([0x63, 0x61, 0x66, 0xe9]).toString('base64'), encoding: 'base64' });
    expect(await errorCode(connection.session.files.edit({ path: 'latin1.txt', oldText: 'caf', newText: 'x' }))).toBe('SBX_ERR_INVALID_ARGUMENT');
  });

  it('refuses a cwd outside the workspace', async () => {
    expect(await errorCode(connection.session.exec({ command: 'pwd', cwd: '/' }))).toBe('SBX_ERR_PERMISSION');
  });

  it('an aborted exec is killed inside the agent', async () => {
    const controller = new AbortController();
    const running = connection.session.exec({ command: 'echo $$ > aborted.pid; exec sleep 1000', abortSignal: controller.signal });
    let pid = '';
    for (let attempt = 0; attempt < 200 && pid === ''; attempt += 1) {
      pid = (await connection.session.files.read({ path: 'aborted.pid' }))?.content.trim() ?? '';
      if (pid === '') await new Promise((resolve) => setTimeout(resolve, 10));
    }
    controller.abort();
    expect(await errorCode(running)).toBe('ERR_ABORTED');
    const check = await connection.session.exec({
      command: `for i in $(seq 100); do kill -0 ${pid} 2>/dev/null || { echo gone; exit; }; sleep 0.05; done; echo alive`,
    });
    expect(check.stdout).toBe('gone\n');
  });
});
