import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { putTarArchive } from './container-archive.js';

/**
 * Makes /logs, /logs/verifier and /tests real folders in the stopped agent container, before it is committed for the
 * verifier. The agent may have made any of them a link (Docker would then mount the verifier's volume wherever the
 * link points) or a file (the verifier container would not start). The daemon's archive extraction replaces a
 * link or a file with the folder the archive carries and keeps a folder that is already there (with its contents:
 * the verifier's fresh volumes hide them), so what the agent did there becomes the verifier's plain layout.
 */
export async function restoreVerifierPaths(docker: Docker, containerId: string): Promise<void> {
  const stage = await mkdtemp(join(tmpdir(), 'corral-verifier-paths-'));
  try {
    for (const folder of ['logs', 'logs/verifier', 'tests']) {
      await mkdir(join(stage, folder));
      await chmod(join(stage, folder), 0o755);
    }
    await putTarArchive(docker, containerId, ['-c', '-C', stage, '--owner=0', '--group=0', '--no-recursion', 'logs', 'logs/verifier', 'tests']);
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
}
