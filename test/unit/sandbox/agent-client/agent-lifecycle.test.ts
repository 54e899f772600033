/** The agent's own lifecycle, run unsandboxed as a plain child: dead-man switch, extend, reset of descendants. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentDirectoryPath } from '../../../../src/sandbox/agent-client/agent-directory.js';
import { AgentConnection } from '../../../../src/sandbox/agent-client/agent-connection.js';

const children: ChildProcessWithoutNullStreams[] = [];
const directories: string[] = [];

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function startAgent(deadlineMs?: number) {
  const root = mkdtempSync(join(tmpdir(), 'corral-agent-lifecycle-'));
  directories.push(root);
  const workspace = join(root, 'workspace');
  const scratch = join(root, 'scratch');
  mkdirSync(scratch);
  const args = ['-u', '-B', `${agentDirectoryPath()}/agent.py`, '--workspace', workspace, '--process-scope', 'descendants', '--scratch-dir', scratch];
  if (deadlineMs !== undefined) args.push('--deadline-ms', String(deadlineMs));
  const child = spawn('python3', args, { stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const connection = new AgentConnection({ writable: child.stdin, readable: child.stdout, sandboxId: 'sbx_lifecycle', backend: 'process', workspace });
  return { child, connection, exited, workspace, scratch };
}

/** True once /proc no longer lists pid as a live (non-zombie) process. */
async function waitUntilGone(pid: number): Promise<boolean> {
  for (let attempt = 0; attempt < 500; attempt += 1) {
    if (!existsSync(`/proc/${pid}`)) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

describe('in-sandbox agent lifecycle', () => {
  // The deadline given at start is far enough that a loaded machine still starts python3 before it; the tests
  // then move it with extend, so how long the start took never decides the outcome.
  it('exits at its deadline and takes detached children with it', async () => {
    const { connection, exited } = startAgent(Date.now() + 60_000);
    await connection.ready({ timeoutMs: 20_000 });
    const daemon = await connection.session.exec({ command: '(sleep 1000 > /dev/null 2>&1 & echo $!)' });
    const daemonPid = Number(daemon.stdout.trim());
    expect(daemonPid).toBeGreaterThan(0);
    await connection.extend(Date.now() + 300);
    await exited;
    expect(await waitUntilGone(daemonPid)).toBe(true);
  });

  it('extend moves the deadline', async () => {
    const { connection } = startAgent(Date.now() + 60_000);
    await connection.ready({ timeoutMs: 20_000 });
    await connection.extend(Date.now() + 1_500);
    await connection.extend(Date.now() + 60_000);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect((await connection.ping()).pid).toBeGreaterThan(0);
  });

  it('reset kills detached descendants and wipes the workspace and scratch directories', async () => {
    const { connection, workspace, scratch } = startAgent();
    await connection.ready({ timeoutMs: 20_000 });
    writeFileSync(join(scratch, 'scratch.txt'), 'x');
    const daemon = await connection.session.exec({ command: '(sleep 1000 > /dev/null 2>&1 & echo $!); echo x > kept.txt; mkdir -p d/e; chmod 000 d' });
    const daemonPid = Number(daemon.stdout.trim());
    const report = await connection.reset();
    expect(report).toMatchObject({ ok: true });
    expect(await waitUntilGone(daemonPid)).toBe(true);
    expect(await connection.session.files.list({ path: '.' })).toEqual([]);
    expect(existsSync(join(workspace, 'kept.txt'))).toBe(false);
    expect(existsSync(join(scratch, 'scratch.txt'))).toBe(false);
    expect(existsSync(scratch)).toBe(true); // the directory itself stays (it may be a mount point); only its contents go
  });
});
