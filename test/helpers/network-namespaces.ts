/**
 * Network namespaces as stand-ins for other machines: each namespace gets a veth pair into the test's (root)
 * namespace with 10.x addresses on a private /30, loopback up, and a default route back through its link, so a
 * process started inside reaches the test's servers only across that link (its 127.0.0.1 is its own). `cut()`
 * drops every packet on the link silently (iptables DROP inside the namespace, as a partition looks: no reset,
 * no unreachable), `restore()` lifts it. Needs root (`ip netns`, iptables); gate with networkNamespacesAvailable().
 *
 * Names carry the creating pid (corral-test-<pid>-...): close() removes everything, an exit hook is the backstop,
 * and a new run deletes namespaces left by runs whose process is gone (a SIGKILLed vitest cannot clean up).
 */
import { type ChildProcess, execFileSync, spawn, spawnSync, type SpawnOptions } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { gate } from './test-gates.js';

const NAME_PREFIX = 'corral-test-';

type Environment = Readonly<Record<string, string | undefined>>;

export interface NetworkNamespace {
  readonly name: string;
  /** The root namespace's end of the link: processes inside reach the test's servers here. */
  readonly hostAddress: string;
  /** The namespace's end of the link. */
  readonly namespaceAddress: string;
  readonly hostInterface: string;
  readonly namespaceInterface: string;
  /** Starts `command` inside the namespace (`ip netns exec` execs it, so the child's pid is the command's). */
  spawn(command: string, args: readonly string[], options?: SpawnOptions): ChildProcess;
  /** Drops every packet on the link, both ways, until restore(). */
  cut(): void;
  restore(): void;
}

export interface NetworkNamespaces {
  readonly namespaces: readonly NetworkNamespace[];
  /** Kills what still runs inside, deletes the namespaces (which deletes the veth pairs). Safe to call twice. */
  close(): void;
}

/** Root, `ip netns` and iptables present; otherwise the gate's skip (or throw under CI=true). */
export function networkNamespacesAvailable(environment: Environment = process.env): boolean {
  let missing: string | null = null;
  if (process.getuid?.() !== 0) missing = 'network namespaces need root (ip netns add); run the tests as root, as CI does';
  else if (spawnSync('ip', ['netns', 'list'], { stdio: 'ignore' }).status !== 0) missing = '`ip netns list` failed (install iproute2)';
  else if (spawnSync('iptables', ['--version'], { stdio: 'ignore' }).status !== 0) missing = '`iptables --version` failed (install iptables)';
  return gate('network namespaces', missing, environment);
}

function run(command: string, args: readonly string[]): string {
  return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function inside(name: string, command: string, args: readonly string[]): string {
  return run('ip', ['netns', 'exec', name, command, ...args]);
}

function namespaceNames(): string[] {
  return run('ip', ['netns', 'list'])
    .split('\n')
    .map((line) => line.split(' ')[0]!)
    .filter((name) => name.startsWith(NAME_PREFIX));
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** SIGKILLs what runs inside `name`, then deletes it; the veth pair goes with the namespace. */
function deleteNamespace(name: string): void {
  const pids = spawnSync('ip', ['netns', 'pids', name], { encoding: 'utf8' }).stdout ?? '';
  for (const pid of pids.split('\n').filter(Boolean)) {
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // already gone
    }
  }
  spawnSync('ip', ['netns', 'delete', name], { stdio: 'ignore' });
}

/** Namespaces of earlier runs whose process no longer exists. */
function reapStaleNamespaces(): void {
  for (const name of namespaceNames()) {
    const pid = Number(/^corral-test-(\d+)-/.exec(name)?.[1]);
    if (Number.isInteger(pid) && pid !== process.pid && !processAlive(pid)) deleteNamespace(name);
  }
}

/** A 10.a.b.0/24 block no local address or route uses; namespace i gets 10.a.b.(4i)/30. */
function freeAddressBlock(): string {
  const taken = run('ip', ['-4', '-o', 'route', 'show', 'table', 'all']) + run('ip', ['-4', '-o', 'address']);
  for (let attempt = 0; attempt < 50; attempt++) {
    const block = `10.${randomInt(200, 250)}.${randomInt(0, 256)}`;
    if (!taken.includes(`${block}.`)) return block;
  }
  throw new Error('network-namespaces: no free 10.x.y.0/24 block found in 50 tries');
}

/** Creates `count` namespaces (at most 63), each linked to the root namespace by its own /30. */
export function createNetworkNamespaces(count: number): NetworkNamespaces {
  if (!Number.isInteger(count) || count < 1 || count > 63) throw new Error(`network-namespaces: count must be 1..63, got ${count}`);
  reapStaleNamespaces();
  const runId = randomBytes(3).toString('hex');
  const block = freeAddressBlock();
  const created: string[] = [];
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    process.off('exit', close);
    for (const name of created) deleteNamespace(name);
  };
  process.on('exit', close);

  const namespaces: NetworkNamespace[] = [];
  try {
    for (let index = 0; index < count; index++) {
      const name = `${NAME_PREFIX}${process.pid}-${runId}-${index}`;
      // Interface names are at most 15 characters.
      const hostInterface = `cq${runId}h${index}`;
      const namespaceInterface = `cq${runId}n${index}`;
      const hostAddress = `${block}.${4 * index + 1}`;
      const namespaceAddress = `${block}.${4 * index + 2}`;
      run('ip', ['netns', 'add', name]);
      created.push(name);
      run('ip', ['link', 'add', hostInterface, 'type', 'veth', 'peer', 'name', namespaceInterface]);
      try {
        run('ip', ['link', 'set', namespaceInterface, 'netns', name]);
      } catch (error) {
        spawnSync('ip', ['link', 'delete', hostInterface], { stdio: 'ignore' });
        throw error;
      }
      run('ip', ['address', 'add', `${hostAddress}/30`, 'dev', hostInterface]);
      run('ip', ['link', 'set', hostInterface, 'up']);
      inside(name, 'ip', ['link', 'set', 'lo', 'up']);
      inside(name, 'ip', ['address', 'add', `${namespaceAddress}/30`, 'dev', namespaceInterface]);
      inside(name, 'ip', ['link', 'set', namespaceInterface, 'up']);
      // The default route lets a process inside reach every host-side address, not only its own link's.
      inside(name, 'ip', ['route', 'add', 'default', 'via', hostAddress]);
      const rules = (action: '-A' | '-D') => {
        inside(name, 'iptables', [action, 'INPUT', '-i', namespaceInterface, '-j', 'DROP']);
        inside(name, 'iptables', [action, 'OUTPUT', '-o', namespaceInterface, '-j', 'DROP']);
      };
      let isCut = false;
      namespaces.push({
        name,
        hostAddress,
        namespaceAddress,
        hostInterface,
        namespaceInterface,
        spawn: (command, args, options = {}) => spawn('ip', ['netns', 'exec', name, command, ...args], options),
        cut: () => {
          if (isCut) return;
          rules('-A');
          isCut = true;
        },
        restore: () => {
          if (!isCut) return;
          rules('-D');
          isCut = false;
        },
      });
    }
  } catch (error) {
    close();
    throw error;
  }
  return { namespaces, close };
}
