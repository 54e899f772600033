/**
 * What the runner's end-to-end tests share: running `corral eval` as a child process, reading what it wrote,
 * and the corral containers a process owns (the data-directory gate is test/helpers/test-gates.ts).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { ResultRecord } from '../../src/runner/trajectory/result-record.js';

export const ROOT = resolve(import.meta.dirname, '../..');
export const CLI = join(ROOT, 'bin', 'corral.mjs');
export const RUNNER_FIXTURES = join(ROOT, 'test', 'fixtures', 'runner');
export const CODE_FIXTURES = join(ROOT, 'test', 'fixtures', 'code');

const execFileAsync = promisify(execFile);

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Environment for children: no warm sandboxes (tests count leases), the caller's extras on top. */
export function childEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, CORRAL_MIN_IDLE: '0', ...extra };
}

/** Starts `corral <args>`; stdout and stderr are collected on the returned object as they arrive. */
export function spawnCorral(
  args: string[],
  extraEnvironment: Record<string, string> = {},
): ChildProcess & { output: { stdout: string; stderr: string }; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: childEnvironment(extraEnvironment), stdio: ['ignore', 'pipe', 'pipe'] });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
  return Object.assign(child, { output, exited });
}

/** Runs `corral <args>` to completion. */
export async function runCorral(args: string[], extraEnvironment: Record<string, string> = {}): Promise<CliResult> {
  const child = spawnCorral(args, extraEnvironment);
  const code = await child.exited;
  return { code, ...child.output };
}

/** Every line of results.jsonl, parsed; throws on a line that is not JSON (the file must be valid JSONL). */
export function readResults(directory: string): ResultRecord[] {
  const path = join(directory, 'results.jsonl');
  if (!existsSync(path)) return [];
  const text = readFileSync(path, 'utf8');
  if (text !== '' && !text.endsWith('\n')) throw new Error(`${path} ends in a torn line`);
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line, index) => {
      try {
        return JSON.parse(line) as ResultRecord;
      } catch {
        throw new Error(`${path}:${index + 1} is not JSON: ${line.slice(0, 200)}`);
      }
    });
}

export function readMetadata(directory: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(directory, 'metadata.json'), 'utf8')) as Record<string, unknown>;
}

/** Ids of corral containers (running or not) whose owner label names this host and pid. */
export async function containersOwnedBy(pid: number): Promise<string[]> {
  const { stdout } = await execFileAsync('docker', ['ps', '-a', '--filter', 'label=corral.app=corral', '--format', '{{.ID}}\t{{.Label "corral.owner"}}']);
  const prefix = `${hostname()}:${pid}:`;
  return stdout
    .split('\n')
    .filter((line) => line.includes('\t'))
    .map((line) => line.split('\t') as [string, string])
    .filter(([, owner]) => owner.startsWith(prefix))
    .map(([id]) => id);
}

export async function docker(...args: string[]): Promise<string> {
  const { stdout } = await execFileAsync('docker', args);
  return stdout;
}
