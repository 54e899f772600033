/**
 * `corral serve` as a child process for the conformance run: an ephemeral port on 127.0.0.1, the process
 * backend, the conformance fixtures. start() resolves once /healthz answers; stop() always ends the
 * process (SIGTERM, then SIGKILL if it hangs) and is safe to call twice.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';

export const REPO_ROOT = resolve(import.meta.dirname, '../..');
const CORRAL_CLI = resolve(REPO_ROOT, 'bin/corral.mjs');
const LISTENING_LINE = /listening on (http:\/\/\S+)/;
const START_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 10_000;

export interface CorralServerProcess {
  /** e.g. http://127.0.0.1:41234 */
  readonly baseUrl: string;
  /** Everything the server wrote to stderr so far (its log). */
  stderr(): string;
  stop(): Promise<void>;
}

export async function startCorralServer(extraArgs: readonly string[] = ['--conformance-fixtures']): Promise<CorralServerProcess> {
  const env: NodeJS.ProcessEnv = { ...process.env, CORRAL_BACKEND: 'process', CORRAL_MIN_IDLE: '0' };
  // The conformance client sends no bearer token; a CORRAL_TOKEN inherited from the shell would turn every check into a 401.
  delete env.CORRAL_TOKEN;
  const child = spawn(process.execPath, [CORRAL_CLI, 'serve', '--host', '127.0.0.1', '--port', '0', '--backend', 'process', ...extraArgs], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const stop = stopper(child);
  try {
    const baseUrl = await waitForListening(child, () => log);
    await waitForHealthy(baseUrl);
    return { baseUrl, stderr: () => log, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function waitForListening(child: ChildProcess, log: () => string): Promise<string> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const match = LISTENING_LINE.exec(log());
    if (match?.[1]) return match[1];
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`corral serve exited (${child.exitCode ?? child.signalCode}) before listening:\n${log().slice(-2_000)}`);
    }
    await delay(100);
  }
  throw new Error(`corral serve did not report a listening address within ${START_TIMEOUT_MS} ms:\n${log().slice(-2_000)}`);
}

async function waitForHealthy(baseUrl: string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  let lastProblem = 'no answer yet';
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`${baseUrl}/healthz`);
      if (response.ok) return;
      lastProblem = `HTTP ${response.status}`;
    } catch (error) {
      lastProblem = (error as Error).message;
    }
    await delay(100);
  }
  throw new Error(`${baseUrl}/healthz never answered 200 (${lastProblem})`);
}

function stopper(child: ChildProcess): () => Promise<void> {
  let stopping: Promise<void> | undefined;
  return () =>
    (stopping ??= (async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      try {
        await exited;
      } finally {
        clearTimeout(timer);
      }
    })());
}

function delay(ms: number): Promise<void> {
  return new Promise((resolveDelay) => setTimeout(resolveDelay, ms));
}
