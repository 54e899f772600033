/**
 * The host pid of a running container's init, for work done in its mount namespace (fork's file-system copy).
 * Docker reports it (State.Pid) in the daemon's PID namespace; it is trusted only after this host's /proc agrees
 * that the process belongs to that container (its cgroup path names the container id), so a daemon in another
 * PID namespace, or a pid reused after the container died, is refused instead of copying the wrong files.
 */
import { readFileSync } from 'node:fs';
import type Docker from 'dockerode';
import { CorralError } from '../../core/errors.js';
import { errorMessage } from './docker-errors.js';

export async function containerNamespacePid(docker: Docker, containerId: string, known: number | undefined): Promise<number> {
  if (known !== undefined && belongsToContainer(known, containerId)) return known;
  let pid: number;
  try {
    pid = (await docker.getContainer(containerId).inspect()).State.Pid;
  } catch (error) {
    throw new CorralError('SBX_ERR_CLOSED', `container ${containerId} cannot be inspected: ${errorMessage(error)}`, { cause: error });
  }
  if (!pid) throw new CorralError('SBX_ERR_CLOSED', `container ${containerId} is not running`);
  if (!belongsToContainer(pid, containerId)) {
    throw new CorralError(
      'SBX_ERR_UNSUPPORTED',
      `container ${containerId}'s init (pid ${pid}) is not visible in this host's /proc: fork needs corral on the Docker daemon's own host`,
    );
  }
  return pid;
}

function belongsToContainer(pid: number, containerId: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cgroup`, 'utf8').includes(containerId);
  } catch {
    return false;
  }
}
