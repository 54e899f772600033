/**
 * A cgroup per sandbox so pids and memory limits hold for the whole tree (bwrap has no limits of its own), and
 * so destroy can find every process even if it escaped its process group. Created under the cgroup this corral
 * process lives in, never above it. Supports cgroup v1 (pids + memory hierarchies) and v2 (unified).
 * Returns null where the host does not let us (not root, read-only cgroupfs, v2 without delegated controllers).
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sleep } from '../../core/abort.js';

const CGROUP_ROOT = '/sys/fs/cgroup';

export interface CgroupLimits {
  memoryMiB: number;
  pidsLimit: number;
}

export interface SandboxCgroup {
  readonly version: 1 | 2;
  /** One directory per hierarchy (v1: pids and memory; v2: one). */
  readonly directories: readonly string[];
  /** Files a launcher writes its pid to, to join every hierarchy before starting the sandbox. */
  readonly procsFiles: readonly string[];
  readonly limitsMemory: boolean;
}

/** Our own cgroup path per v1 controller, or under key '' for v2. */
function ownCgroupPaths(): Map<string, string> {
  const paths = new Map<string, string>();
  for (const line of readFileSync('/proc/self/cgroup', 'utf8').split('\n')) {
    const [, controllers, path] = line.match(/^\d+:([^:]*):(.*)$/) ?? [];
    if (controllers === undefined || path === undefined) continue;
    for (const controller of controllers.split(',')) paths.set(controller, path);
  }
  return paths;
}

async function tryWrite(file: string, value: string): Promise<boolean> {
  try {
    await writeFile(file, value);
    return true;
  } catch {
    return false;
  }
}

async function createV1(name: string, limits: CgroupLimits, own: Map<string, string>): Promise<SandboxCgroup | null> {
  const directories: string[] = [];
  let limitsMemory = false;
  for (const controller of ['pids', 'memory']) {
    const mount = join(CGROUP_ROOT, controller);
    const ownPath = own.get(controller);
    if (ownPath === undefined || !existsSync(join(mount, 'cgroup.procs'))) continue;
    const directory = join(mount, ownPath, name);
    try {
      await mkdir(directory);
    } catch {
      continue;
    }
    directories.push(directory);
    if (controller === 'pids') await tryWrite(join(directory, 'pids.max'), String(limits.pidsLimit));
    if (controller === 'memory') {
      const bytes = String(limits.memoryMiB * 1024 * 1024);
      limitsMemory = await tryWrite(join(directory, 'memory.limit_in_bytes'), bytes);
      await tryWrite(join(directory, 'memory.memsw.limit_in_bytes'), bytes); // memory + swap, where accounted
    }
  }
  if (directories.length === 0) return null;
  return { version: 1, directories, procsFiles: directories.map((directory) => join(directory, 'cgroup.procs')), limitsMemory };
}

async function createV2(name: string, limits: CgroupLimits, ownPath: string): Promise<SandboxCgroup | null> {
  const parent = join(CGROUP_ROOT, ownPath);
  const directory = join(parent, name);
  try {
    await mkdir(directory);
  } catch {
    return null;
  }
  if (!existsSync(join(directory, 'pids.max')) || !existsSync(join(directory, 'memory.max'))) {
    // Fails with EBUSY when our own cgroup holds processes (the "no internal processes" rule); then we give up.
    await tryWrite(join(parent, 'cgroup.subtree_control'), '+pids +memory');
  }
  const pidsOk = await tryWrite(join(directory, 'pids.max'), String(limits.pidsLimit));
  const memoryOk = await tryWrite(join(directory, 'memory.max'), String(limits.memoryMiB * 1024 * 1024));
  if (!pidsOk && !memoryOk) {
    await rmdir(directory).catch(() => undefined);
    return null;
  }
  await tryWrite(join(directory, 'memory.swap.max'), '0');
  return { version: 2, directories: [directory], procsFiles: [join(directory, 'cgroup.procs')], limitsMemory: memoryOk };
}

export async function createSandboxCgroup(name: string, limits: CgroupLimits): Promise<SandboxCgroup | null> {
  if (process.platform !== 'linux') return null;
  try {
    const own = ownCgroupPaths();
    if (existsSync(join(CGROUP_ROOT, 'cgroup.controllers'))) return await createV2(name, limits, own.get('') ?? '/');
    return await createV1(name, limits, own);
  } catch {
    return null;
  }
}

async function pidsIn(directory: string): Promise<number[]> {
  try {
    const text = await readFile(join(directory, 'cgroup.procs'), 'utf8');
    return text.split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** SIGKILLs everything in the cgroup directories (v2: cgroup.kill when the kernel has it), then removes them. */
export async function destroyCgroupDirectories(directories: readonly string[]): Promise<void> {
  for (const directory of directories) {
    if (existsSync(join(directory, 'cgroup.kill'))) await tryWrite(join(directory, 'cgroup.kill'), '1');
  }
  for (let attempt = 0; attempt < 100; attempt += 1) {
    let remaining = 0;
    for (const directory of directories) {
      if (!existsSync(directory)) continue;
      const pids = await pidsIn(directory);
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      if (pids.length === 0) await rmdir(directory).catch(() => undefined);
      if (existsSync(directory)) remaining += 1;
    }
    if (remaining === 0) return;
    await sleep(20); // killed tasks leave the cgroup asynchronously; rmdir is EBUSY until they have
  }
}
