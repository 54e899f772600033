import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

export const execFileAsync = promisify(execFile);

/** Runs `task` n times sequentially and returns each duration in ms. */
export async function sampleMs(count: number, task: (index: number) => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let index = 0; index < count; index++) {
    const startedAt = performance.now();
    await task(index);
    samples.push(performance.now() - startedAt);
  }
  return samples;
}

/** Wall time of one CLI command in ms (used for peers such as `docker run` and `docker exec`). */
export async function timeCommandMs(command: string, args: readonly string[]): Promise<number> {
  const startedAt = performance.now();
  await execFileAsync(command, args, { maxBuffer: 1 << 20 });
  return performance.now() - startedAt;
}

export function median(samples: readonly number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
