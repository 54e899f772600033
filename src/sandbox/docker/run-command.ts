import { spawn } from 'node:child_process';

export interface CommandResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  durationMs: number;
}

export interface RunCommandOptions {
  cwd?: string;
  /** Receives each output line as it arrives (progress for long builds). */
  onLine?: (line: string) => void;
  /** Kept output per stream, from the end; long builds print a lot and only the tail explains a failure. */
  maxKeptChars?: number;
  timeoutMs?: number;
}

/** Runs a host command without a shell and collects its output; never throws for a non-zero exit. */
export function runCommand(file: string, args: readonly string[], options: RunCommandOptions = {}): Promise<CommandResult> {
  const maxKeptChars = options.maxKeptChars ?? 64_000;
  const startedAt = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const kept = { stdout: '', stderr: '' };
    const partial = { stdout: '', stderr: '' };
    const timer = options.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), options.timeoutMs) : undefined;
    const collect = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      kept[stream] = (kept[stream] + text).slice(-maxKeptChars);
      if (!options.onLine) return;
      const lines = (partial[stream] + text).split('\n');
      partial[stream] = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) options.onLine(line);
    };
    child.stdout.on('data', collect('stdout'));
    child.stderr.on('data', collect('stderr'));
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      resolve({ exitCode, stdout: kept.stdout, stderr: kept.stderr, durationMs: performance.now() - startedAt });
    });
  });
}
