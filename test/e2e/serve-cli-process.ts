/** Runs `corral serve` as a real child process for the serve-* tests: its stderr, its exit, and its address once listening. */
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';

const CLI = resolve(import.meta.dirname, '../../bin/corral.mjs');
export const SMALL_CORPUS = resolve(import.meta.dirname, '../fixtures/mcp-wiki/pages.jsonl');

export interface ServeProcess {
  child: ChildProcess;
  stderr(): string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** The http://host:port it listens on, once the listening line appeared; undefined before. */
  address(): string | undefined;
  kill(): void;
}

/** Environment variables a developer's shell may set that would change what serve does. */
const CLEARED = ['CORRAL_BACKEND', 'CORRAL_DOCKER_SOCKET', 'CORRAL_IMAGE', 'CORRAL_PORT', 'CORRAL_HOST', 'CORRAL_TOKEN', 'CORRAL_CONFIG', 'DOCKER_HOST'];

export function startServe(args: readonly string[], env: Record<string, string> = {}): ServeProcess {
  const base: Record<string, string> = { ...(process.env as Record<string, string>), CORRAL_MIN_IDLE: '0', CORRAL_LOG_LEVEL: 'silent' };
  for (const name of CLEARED) delete base[name];
  const child = spawn(process.execPath, [CLI, 'serve', '--host', '127.0.0.1', '--corpus', SMALL_CORPUS, ...args], {
    env: { ...base, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
  return {
    child,
    stderr: () => stderr,
    exited,
    address: () => /listening on (http:\/\/\S+)/.exec(stderr)?.[1],
    kill: () => void child.kill('SIGKILL'),
  };
}
