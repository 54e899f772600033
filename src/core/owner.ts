import { hostname } from 'node:os';
import { isProcessAlive } from './process-alive.js';

/**
 * Identifies this corral process on labels of everything it creates, as `<host>:<pid>:<startMs>`, so the reaper
 * can tell whether the owner of a sandbox is still alive.
 */
const startedAtMs = Date.now();
export const OWNER_ID = `${hostname()}:${process.pid}:${startedAtMs}`;

/** False only when the owner ran on this host and its pid is gone. Owners on other hosts are assumed alive. */
export function isOwnerAlive(ownerId: string): boolean {
  if (ownerId === OWNER_ID) return true;
  const [host, pidText] = ownerId.split(':');
  if (host !== hostname()) return true;
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  return isProcessAlive(pid);
}
