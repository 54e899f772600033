/**
 * Runs npm for corral's own installs (environment packages, CLI agents). Package scripts never run
 * (callers pass --ignore-scripts): installing must not execute anything on the host by itself (docs/security.md).
 * Output is kept bounded (a tail of each stream), a stuck npm is killed after its timeout, and every failure is
 * the caller's typed install error with npm's output tail.
 */
import { spawn } from 'node:child_process';
import { CorralError, type ErrorCode } from './errors.js';

const OUTPUT_TAIL_CHARS = 65_536;
const REPORTED_TAIL_CHARS = 4_000;

export interface NpmRunOptions {
  cwd: string;
  /** What the run does, for the error message ("installing x"). */
  what: string;
  /** The caller's install error code. */
  errorCode: ErrorCode;
  /** npm executable (default: npm on PATH). */
  npmCommand?: string;
  timeoutMs: number;
}

/** npm's stdout when it exits 0; otherwise throws options.errorCode. */
export async function runNpm(args: string[], options: NpmRunOptions): Promise<string> {
  const npm = options.npmCommand ?? 'npm';
  const { code, stdout, stderr, spawnError } = await spawnNpm(npm, args, options);
  if (spawnError) {
    throw new CorralError(options.errorCode, `${options.what}: cannot run ${npm} (${spawnError.message}); corral installs with npm, put it on PATH`, {
      cause: spawnError,
    });
  }
  if (code !== 0) {
    const tail = `${stdout}\n${stderr}`.trim().slice(-REPORTED_TAIL_CHARS);
    throw new CorralError(options.errorCode, `${options.what}: npm ${args[0]} exited ${code}:\n${tail}`, {
      details: { args, exitCode: code, outputTail: tail },
    });
  }
  return stdout;
}

function spawnNpm(npm: string, args: string[], options: NpmRunOptions): Promise<{ code: number | null; stdout: string; stderr: string; spawnError?: Error }> {
  return new Promise((resolveRun) => {
    const child = spawn(npm, args, {
      cwd: options.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout = (stdout + chunk.toString()).slice(-OUTPUT_TAIL_CHARS)));
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-OUTPUT_TAIL_CHARS)));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolveRun({ code: null, stdout, stderr, spawnError: error });
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolveRun({ code: code ?? (signal ? 128 : null), stdout, stderr: signal ? `${stderr}\n(npm killed by ${signal})` : stderr });
    });
  });
}
