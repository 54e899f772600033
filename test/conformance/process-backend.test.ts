/** What only the process backend does: records for cleanup, per-sandbox cgroups, and the explicit unsandboxed mode. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { newId } from '../../src/core/ids.js';
import { OWNER_ID } from '../../src/core/owner.js';
import { ProcessProvider } from '../../src/sandbox/process/process-provider.js';
import { DEFAULT_RECORDS_DIRECTORY, type SandboxRecord } from '../../src/sandbox/process/sandbox-records.js';
import { parseSandboxSpec } from '../../src/sandbox/spec.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { expectCorralError } from './sandbox-fixture.js';

const available = await backendAvailable('process');
const createOptions = () => ({ sandboxId: newId('sbx'), ownerId: OWNER_ID, expiresAtMs: Date.now() + 600_000 });

/** Host pids of the processes under `root` running `program` (argv[0] ends with it), read from the host's /proc. */
function descendantsRunning(root: number, program: string, argument: string): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // exited while we looked
    }
  }
  const under = (pid: number): boolean => {
    for (let current = parents.get(pid), hops = 0; current !== undefined && hops < 64; current = parents.get(current), hops += 1)
      if (current === root) return true;
    return false;
  };
  return [...parents.keys()].filter((pid) => {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return under(pid) && argv[0]!.endsWith(program) && argv.includes(argument);
    } catch {
      return false;
    }
  });
}

describe.skipIf(!available)('process backend specifics', () => {
  it('records each sandbox and removes the record, the cgroups and the processes on destroy', async () => {
    const provider = new ProcessProvider();
    const options = createOptions();
    const handle = await provider.create(parseSandboxSpec({ memoryMiB: 128, pidsLimit: 64 }), options);
    const recordFile = join(DEFAULT_RECORDS_DIRECTORY, `${options.sandboxId}.json`);
    const record = JSON.parse(readFileSync(recordFile, 'utf8')) as SandboxRecord;
    expect(record).toMatchObject({ sandboxId: options.sandboxId, ownerId: OWNER_ID, sandboxed: true, expiresAtMs: options.expiresAtMs });
    for (const directory of record.cgroupDirectories) {
      expect(existsSync(directory)).toBe(true);
      if (existsSync(join(directory, 'pids.max'))) expect(readFileSync(join(directory, 'pids.max'), 'utf8').trim()).toBe('64');
    }
    expect(existsSync(`/proc/${record.pid}`)).toBe(true);
    await handle.destroy();
    expect(existsSync(recordFile)).toBe(false);
    for (const directory of record.cgroupDirectories) expect(existsSync(directory)).toBe(false);
    expect(existsSync(`/proc/${record.pid}`)).toBe(false);
  });

  it('runs user code as the configured sandboxUid, and refuses uid 0 in the config and in the provider', async () => {
    expect(() => loadConfig({ env: { CORRAL_SANDBOX_UID: '0' } })).toThrow(/sandboxUid/);
    expect(loadConfig({ env: { CORRAL_SANDBOX_UID: '58123' } }).sandbox.sandboxUid).toBe(58_123);
    const root = new ProcessProvider({ sandboxUid: 0 });
    expect((await root.available()).ok).toBe(false);
    await expectCorralError(root.create(parseSandboxSpec({}), createOptions()), 'SBX_ERR_UNAVAILABLE');

    const provider = new ProcessProvider({ sandboxUid: loadConfig({ env: { CORRAL_SANDBOX_UID: '58123' } }).sandbox.sandboxUid });
    const handle = await provider.create(parseSandboxSpec({}), createOptions());
    try {
      expect((await handle.session.exec({ command: 'echo $(id -u):$(id -g)' })).stdout).toBe('58123:58123\n');
      expect((await handle.session.python({ code: 'import os; os.getuid()' })).value).toBe('58123');
    } finally {
      await handle.destroy();
    }
  });

  it('reports a call whose user-process spawner died as an infrastructure error, then starts a fresh one', async () => {
    const provider = new ProcessProvider();
    const options = createOptions();
    const handle = await provider.create(parseSandboxSpec({}), options);
    try {
      const record = JSON.parse(readFileSync(join(DEFAULT_RECORDS_DIRECTORY, `${options.sandboxId}.json`), 'utf8')) as SandboxRecord;
      expect((await handle.session.exec({ command: 'sleep 1000 > /dev/null 2>&1 & echo started' })).stdout).toBe('started\n');
      const spawnerPids = () => descendantsRunning(record.pid, 'python3', '/opt/corral/agent/user_spawner.py');
      const spawners = spawnerPids();
      expect(spawners).toHaveLength(1);
      const running = handle.session.exec({ command: 'sleep 1001; true', timeoutMs: 120_000 });
      const deadline = Date.now() + 60_000; // wait until the command runs (polled, generous bound)
      while (descendantsRunning(record.pid, 'sleep', '1001').length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      process.kill(spawners[0]!, 'SIGKILL'); // user code cannot (it is PID 1 of their namespace); the host can

      const error = await expectCorralError(running, 'SBX_ERR_INTERNAL');
      expect(error.message).toMatch(/spawner died/);
      const after = await handle.session.exec({ command: 'cat /proc/[0-9]*/comm 2>/dev/null; true' });
      expect(after.exitCode).toBe(0);
      expect(after.stdout.split('\n')).not.toContain('sleep'); // the old namespace went with its spawner
      expect(spawnerPids()).toHaveLength(1);
      expect(spawnerPids()).not.toEqual(spawners);
      expect(await handle.health()).toBe(true);
    } finally {
      await handle.destroy();
    }
  });

  it('refuses to run without bubblewrap unless the spec allows it explicitly', async () => {
    const provider = new ProcessProvider({ bwrapPath: null });
    expect((await provider.available()).ok).toBe(false);
    await expectCorralError(provider.create(parseSandboxSpec({}), createOptions()), 'SBX_ERR_UNAVAILABLE');
  });

  it('runs the agent unsandboxed in a private host workspace when allowUnsandboxed is set', async () => {
    const provider = new ProcessProvider({ bwrapPath: null });
    const handle = await provider.create(parseSandboxSpec({ allowUnsandboxed: true }), createOptions());
    const workspace = handle.session.workspace;
    try {
      expect(workspace).not.toBe('/workspace');
      await handle.session.files.write({ path: 'hello.txt', content: 'hi' });
      expect(readFileSync(join(workspace, 'hello.txt'), 'utf8')).toBe('hi');
      expect((await handle.session.exec({ command: 'cat hello.txt; echo " $TMPDIR"' })).stdout).toMatch(/^hi \/.+\/tmp\n$/);
      expect((await handle.session.python({ code: 'import os; os.getcwd()' })).value).toBe(`'${workspace}'`);
      const report = await handle.reset();
      expect(report).toMatchObject({ ok: true });
    } finally {
      await handle.destroy();
    }
    expect(existsSync(workspace)).toBe(false);
  });
});
