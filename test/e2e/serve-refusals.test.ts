/**
 * `corral serve` refuses to start, with one line that says what is wrong and what to do and exit code 2, when it
 * could not serve: its port is taken, or the backend asked for by name cannot create sandboxes here. 'auto'
 * falls back to the process backend instead and says so on stderr.
 */
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { backendAvailable } from '../helpers/backend-gate.js';
import { type ServeProcess, startServe } from './serve-cli-process.js';

const processBackend = await backendAvailable('process');
const NO_DAEMON = { DOCKER_HOST: 'unix:///nonexistent.sock' };
/** Generous bound for a refusal: the CLI loads, probes and exits well within it. */
const EXIT_BOUND_MS = 45_000;

let running: ServeProcess[] = [];
afterEach(() => {
  for (const serve of running) serve.kill();
  running = [];
});

function serve(args: readonly string[], env: Record<string, string> = {}): ServeProcess {
  const started = startServe(args, env);
  running.push(started);
  return started;
}

/** The exit code, or 'still running' if the server did not exit within the bound (the old behaviour). */
async function exitCode(started: ServeProcess): Promise<number | null | 'still running'> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<'still running'>((resolve) => (timer = setTimeout(() => resolve('still running'), EXIT_BOUND_MS)));
  try {
    return await Promise.race([started.exited, bound]);
  } finally {
    clearTimeout(timer);
  }
}

/** stderr without the informational [corral serve] progress lines. */
const complaints = (stderr: string) => stderr.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('[corral serve]'));

describe.skipIf(!processBackend)('corral serve refuses what it cannot serve', () => {
  it('a port in use: one line naming the port and --port, exit code 2, no stack', async () => {
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      const started = serve(['--backend', 'process', '--port', String(port)]);
      expect(await exitCode(started)).toBe(2);
      const lines = complaints(started.stderr());
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain('SERVE_ERR_LISTEN_FAILED');
      expect(lines[0]).toContain(`port ${port} is already in use`);
      expect(lines[0]).toContain('--port');
      expect(started.stderr()).not.toMatch(/^\s+at /m);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it('--backend docker with no reachable daemon: one line naming the socket and the other backends, exit code 2', async () => {
    const started = serve(['--backend', 'docker', '--port', '0'], NO_DAEMON);
    expect(await exitCode(started)).toBe(2);
    const lines = complaints(started.stderr());
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('SBX_ERR_UNAVAILABLE');
    expect(lines[0]).toContain('/nonexistent.sock');
    expect(lines[0]).toContain('--backend process');
    expect(started.address()).toBeUndefined();
  });

  it('--backend auto with no reachable daemon falls back to process and says why on stderr', async () => {
    const started = serve(['--backend', 'auto', '--port', '0'], NO_DAEMON);
    await expect.poll(() => started.address() ?? complaints(started.stderr()).join('\n'), { timeout: 30_000 }).toMatch(/^http:/);
    expect(started.stderr()).toContain('backend auto: process (docker unavailable: no Docker daemon socket at /nonexistent.sock');
    expect(started.stderr()).toMatch(/listening on \S+ \(backend process;/);
    const readiness = await fetch(`${started.address()}/readyz`);
    expect(await readiness.json()).toEqual({ backend: 'process', ready: true });
  });
});
