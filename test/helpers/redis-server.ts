/**
 * A private redis-server for one test: its own port and data folder, bound to the addresses the test names
 * (e.g. 127.0.0.1 and a veth's host end, so workers in network namespaces reach it), appendonly with fsync on
 * every write so a restart loses nothing acknowledged. Gate with redisServerAvailable() (setup.sh installs it).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gate } from './test-gates.js';

type Environment = Readonly<Record<string, string | undefined>>;

export interface TestRedisServer {
  readonly port: number;
  /** redis://<address>:<port> for each bound address, in the order given. */
  url(address?: string): string;
  /** SIGKILLs and starts it again on the same port and data (appendonly replays). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export function redisServerAvailable(environment: Environment = process.env): boolean {
  const probe = spawnSync('redis-server', ['--version'], { stdio: 'ignore' });
  return gate('redis-server', probe.status === 0 ? null : '`redis-server --version` failed (scripts/setup.sh installs Debian redis-server)', environment);
}

/** A free TCP port on loopback (the kernel's pick, released at once). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function answersPing(address: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(port, address, () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

export async function startRedisServer(options: { bind?: readonly string[] } = {}): Promise<TestRedisServer> {
  const bind = options.bind ?? ['127.0.0.1'];
  const directory = mkdtempSync(join(tmpdir(), 'corral-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;

  const start = async () => {
    const args = ['--port', String(port), '--bind', ...bind, '--dir', directory, '--appendonly', 'yes', '--appendfsync', 'always'];
    args.push('--save', '', '--protected-mode', 'no', '--daemonize', 'no', '--logfile', join(directory, 'redis.log'));
    child = spawn('redis-server', args, { stdio: 'ignore' });
    const exited = new Promise<never>((_, reject) =>
      child!.once('exit', (code) => reject(new Error(`redis-server exited (${code}) before answering; see ${directory}/redis.log`))),
    );
    exited.catch(() => {});
    for (let attempt = 0; attempt < 100; attempt++) {
      if (await answersPing(bind[0]!, port)) return;
      await Promise.race([new Promise((resolve) => setTimeout(resolve, 100)), exited]);
    }
    throw new Error(`redis-server on port ${port} did not answer PING; see ${directory}/redis.log`);
  };
  const stop = async () => {
    const current = child;
    child = undefined;
    if (!current || current.exitCode !== null || current.signalCode !== null) return;
    const exited = new Promise((resolve) => current.once('exit', resolve));
    current.kill('SIGKILL');
    await exited;
  };

  await start();
  return {
    port,
    url: (address = bind[0]!) => `redis://${address}:${port}`,
    restart: async () => {
      await stop();
      await start();
    },
    close: async () => {
      await stop();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
