/**
 * The idle-memory figure of `corral bench sandbox`: mean memory per container from `docker stats`. With 200
 * sandboxes held, `docker stats` (and `docker ps`) can fail under load (an EOF from the daemon); the figure then
 * reports the failure (value NaN, `error` set) and the benchmark goes on to release its sandboxes and measure the
 * rest, instead of dying with them held.
 */
import type { Figure } from './figure.js';
import { execFileAsync } from './measure.js';

/** `docker stats --no-stream` output for these containers, one `{{.MemUsage}}` line each. */
export type StatsSource = (ids: readonly string[]) => Promise<string>;

export const dockerStats: StatsSource = async (ids) =>
  (await execFileAsync('docker', ['stats', '--no-stream', '--format', '{{.MemUsage}}', ...ids], { maxBuffer: 8 << 20 })).stdout;

const UNITS: Record<string, number> = { B: 1 / 2 ** 20, KiB: 1 / 1024, MiB: 1, GiB: 1024, kB: 1 / 1024, MB: 1, GB: 1024 };

/** Mean MiB over the lines `docker stats` printed ("12.5MiB / 512MiB"); NaN when no line parses. */
export function meanMemoryMiB(statsOutput: string): number {
  const values = statsOutput
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const match = /([\d.]+)\s*([KMG]?i?B)/.exec(line.split('/')[0]!.trim());
      return match ? Number(match[1]) * (UNITS[match[2]!] ?? 1) : Number.NaN;
    })
    .filter((value) => !Number.isNaN(value));
  return values.length === 0 ? Number.NaN : values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** The sandbox.docker.idle_memory figure; a failing stats source (or container list) is reported in it, never thrown. */
export async function idleMemoryFigure(listIds: () => Promise<readonly string[]>, source: StatsSource = dockerStats): Promise<Figure> {
  const name = 'sandbox.docker.idle_memory';
  const unit = 'MiB/sandbox';
  try {
    const ids = await listIds();
    if (ids.length === 0) return { name, value: Number.NaN, unit, error: 'no containers to measure' };
    const value = meanMemoryMiB(await source(ids));
    return Number.isNaN(value) ? { name, value, unit, error: 'docker stats printed no memory figure' } : { name, value: Math.round(value * 10) / 10, unit };
  } catch (error) {
    const message = ((error as { stderr?: string }).stderr?.trim() || (error as Error).message).split('\n')[0]!;
    return { name, value: Number.NaN, unit, error: `docker stats failed: ${message}` };
  }
}
