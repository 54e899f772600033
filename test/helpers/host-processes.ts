/**
 * Finds, from the host, the processes of one process-backend sandbox: the test writes a marker file into the
 * sandbox's workspace, and a process belongs to it when /proc/<pid>/root/workspace holds that marker (the test
 * runs as root, like CI, so it may look into another mount namespace). User code can no longer kill its own agent,
 * so fault tests kill it from here, as a crash or the OOM killer would.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';

export interface HostProcess {
  pid: number;
  argv: string[];
}

function argvOf(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return [];
  }
}

/** Processes whose view of /workspace holds `marker`, with their argv. */
export function processesSeeingMarker(marker: string): HostProcess[] {
  const found: HostProcess[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    try {
      if (existsSync(`/proc/${pid}/root/workspace/${marker}`)) found.push({ pid, argv: argvOf(pid) });
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

/** The in-sandbox agent of the sandbox whose workspace holds `marker` (its argv runs agent.py). */
export function agentSeeingMarker(marker: string): HostProcess | undefined {
  return processesSeeingMarker(marker).find((process) => process.argv.some((argument) => argument.endsWith('/agent.py')));
}
