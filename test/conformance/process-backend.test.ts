/** What only the process backend does: records for cleanup, per-sandbox cgroups, and the explicit unsandboxed mode. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/core/ids.js';
import { OWNER_ID } from '../../src/core/owner.js';
import { ProcessProvider } from '../../src/sandbox/process/process-provider.js';
import { DEFAULT_RECORDS_DIRECTORY, type SandboxRecord } from '../../src/sandbox/process/sandbox-records.js';
import { parseSandboxSpec } from '../../src/sandbox/spec.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { expectCorralError } from './sandbox-fixture.js';

const available = await backendAvailable('process');
const createOptions = () => ({ sandboxId: newId('sbx'), ownerId: OWNER_ID, expiresAtMs: Date.now() + 600_000 });

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
