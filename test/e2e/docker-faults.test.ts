/**
 * Docker faults: a container killed under a call, and an owner process SIGKILLed with sandboxes alive.
 * Needs a Docker daemon and the corral/python image (built here, offline, when missing).
 */
import { spawn } from 'node:child_process';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CorralError } from '../../src/core/errors.js';
import { newId } from '../../src/core/ids.js';
import { OWNER_ID, isOwnerAlive } from '../../src/core/owner.js';
import { DockerProvider } from '../../src/sandbox/docker/docker-provider.js';
import { buildImages } from '../../src/sandbox/docker/image-builder.js';
import { parseSandboxSpec } from '../../src/sandbox/spec.js';
import { backendAvailable } from '../helpers/backend-gate.js';

const execFileAsync = promisify(execFile);
const projectRoot = resolve(import.meta.dirname, '../..');
const dockerAvailable = await backendAvailable('docker');

async function containersOwnedBy(ownerId: string): Promise<string[]> {
  const { stdout } = await execFileAsync('docker', ['ps', '-aq', '--filter', 'label=corral.app=corral', '--filter', `label=corral.owner=${ownerId}`]);
  return stdout.split('\n').filter(Boolean);
}

describe.skipIf(!dockerAvailable)('docker faults', () => {
  const provider = new DockerProvider();
  const spec = parseSandboxSpec({ backend: 'docker' });

  beforeAll(async () => {
    await buildImages({ offline: true, log: (line) => console.log(`[images] ${line}`) });
  }, 900_000);

  afterAll(async () => {
    await provider.cleanup({ ownerAlive: (ownerId) => ownerId !== OWNER_ID && isOwnerAlive(ownerId) });
    await provider.close();
  });

  it('fails an in-flight call with a typed error when the container is killed', async () => {
    const handle = await provider.create(spec, { sandboxId: newId('sbx'), ownerId: OWNER_ID, expiresAtMs: Date.now() + 120_000 });
    const closeReasons: Error[] = [];
    handle.onClose((reason) => closeReasons.push(reason));
    // The command outlives the test timeout, and so does its own timeout: only the kill can end the call in time.
    const call = handle.session.exec({ command: 'sleep 600', timeoutMs: 600_000 });
    let killSent = false;
    const outcome = call.then(
      () => ({ error: undefined, afterKill: killSent }),
      (error: unknown) => ({ error, afterKill: killSent }),
    );
    await expect.poll(async () => (await execFileAsync('docker', ['top', handle.containerId])).stdout, { timeout: 30_000 }).toContain('sleep 600');
    killSent = true;
    await execFileAsync('docker', ['kill', handle.containerId]);
    const { error, afterKill } = await outcome;

    expect(afterKill).toBe(true);
    expect(CorralError.isInstance(error)).toBe(true);
    expect(['SBX_ERR_KILLED', 'SBX_ERR_CLOSED']).toContain((error as CorralError).code);
    expect(handle.closed).toBe(true);
    expect(closeReasons).toHaveLength(1);
    expect(await handle.health()).toBe(false);
    await handle.destroy(); // idempotent on a container that is already gone
    await handle.destroy();
  });

  it('leaves no sandbox of an owner that was SIGKILLed: they exit with their stdin, and cleanup finds none', async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'corral-orphan-'));
    const script = join(scratch, 'orphan-owner.mts');
    const source = (path: string) => JSON.stringify(pathToFileURL(join(projectRoot, path)).href);
    await writeFile(
      script,
      [
        `import { OWNER_ID } from ${source('src/core/owner.ts')};`,
        `import { DockerProvider } from ${source('src/sandbox/docker/docker-provider.ts')};`,
        `import { parseSandboxSpec } from ${source('src/sandbox/spec.ts')};`,
        `const provider = new DockerProvider();`,
        `const spec = parseSandboxSpec({ backend: 'docker' });`,
        `const expiresAtMs = Date.now() + 600_000;`,
        `await Promise.all([1, 2, 3].map((n) => provider.create(spec, { sandboxId: 'orphan' + n + '-' + process.pid, ownerId: OWNER_ID, expiresAtMs })));`,
        `process.stdout.write('READY ' + OWNER_ID + '\\n');`,
        `setInterval(() => undefined, 60_000);`,
      ].join('\n'),
    );
    // node --import tsx/esm rather than the tsx binary: that one runs the script in a grandchild, which a
    // SIGKILL of the child would leave alive (and still owning the sandboxes).
    const child = spawn(process.execPath, ['--import', 'tsx/esm', script], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const ownerId = await new Promise<string>((resolveOwner, rejectOwner) => {
        let output = '';
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          const match = /READY (\S+)\n/.exec(output);
          if (match) resolveOwner(match[1]!);
        });
        child.once('exit', (code) => rejectOwner(new Error(`owner script exited early with ${code}: ${output}`)));
      });
      expect(await containersOwnedBy(ownerId)).toHaveLength(3);

      const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
      child.kill('SIGKILL');
      await exited;
      expect(isOwnerAlive(ownerId)).toBe(false);

      // Their stdin closed with the owner: the agents exit on their own and AutoRemove deletes the containers,
      // with no reaper pass. cleanup() then finds nothing left of that owner either way.
      await expect.poll(() => containersOwnedBy(ownerId), { timeout: 30_000, interval: 250 }).toHaveLength(0);
      await provider.cleanup({ ownerAlive: isOwnerAlive });
      expect(await containersOwnedBy(ownerId)).toHaveLength(0);
    } finally {
      child.kill('SIGKILL');
      await rm(scratch, { recursive: true, force: true });
    }
  }, 120_000);
});
