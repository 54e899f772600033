import { readFileSync } from 'node:fs';

/**
 * The start time of a host process in clock ticks since boot (field 22 of /proc/<pid>/stat), or null when it is
 * gone. Stored with a pid so a later cleanup never kills an unrelated process that reused the number.
 */
export function processStartTicks(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

/** SIGKILLs a host process group; a group that is already gone is fine. */
export function killProcessGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // ESRCH: nothing left to kill
  }
}

/** True when pid is alive and is still the process that was started at startTicks. */
export function isSameProcess(pid: number, startTicks: string | null): boolean {
  return startTicks !== null && processStartTicks(pid) === startTicks;
}

/** The oldest child of a host process (from /proc/<pid>/task/<pid>/children), or null when it has none or is gone. */
export function firstChildPid(pid: number): number | null {
  try {
    const first = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/)[0];
    return first ? Number(first) : null;
  } catch {
    return null;
  }
}
