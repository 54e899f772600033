/**
 * `corral bench environments`: what serving a custom environment costs. A custom tool's calls/s over HTTP MCP
 * against the built-in trivial tool, the overhead of one episode (create + score + delete) against three bare HTTP
 * round trips, and a custom environment's rollouts/s against the same loop over the built-in tool; each peer in
 * the same run; and one turn of the step API (POST /v1/episodes/<id>/step, /ws/episodes) against a bare HTTP round trip.
 */
import { customRolloutFigures } from './environments-bench-rollouts.js';
import { episodeOverheadFigures } from './environments-bench-episode.js';
import { stepOverheadFigures } from './environments-bench-step.js';
import { benchBuiltInEnvironment, benchCustomEnvironment } from './environments-bench-fixtures.js';
import { startEnvironmentsBenchServer } from './environments-bench-server.js';
import { customToolFigures } from './environments-bench-tool.js';
import type { Figure } from './figure.js';

export const ENVIRONMENTS_BENCH_PARTS = ['tool', 'episode', 'step', 'rollouts'] as const;
export type EnvironmentsBenchPart = (typeof ENVIRONMENTS_BENCH_PARTS)[number];

export interface EnvironmentsBenchOptions {
  parts: readonly EnvironmentsBenchPart[];
  clients: number;
  rounds: number;
  roundMs: number;
  episodes: number;
  /** Timed steps of each kind for the step figure. */
  steps: number;
  rollouts: number;
  inFlight: number;
  repeats: number;
  log: (line: string) => void;
}

export async function runEnvironmentsBench(options: EnvironmentsBenchOptions): Promise<Figure[]> {
  const figures: Figure[] = [];
  if (options.parts.includes('tool') || options.parts.includes('episode') || options.parts.includes('step')) {
    const server = await startEnvironmentsBenchServer([benchCustomEnvironment, benchBuiltInEnvironment]);
    try {
      if (options.parts.includes('tool')) {
        options.log(`custom tool: ${options.clients} clients, ${options.rounds} interleaved rounds of ${options.roundMs} ms`);
        figures.push(...(await customToolFigures(server, options)));
      }
      if (options.parts.includes('episode')) {
        options.log(`episodes: ${options.episodes} sequential create + score + delete`);
        figures.push(...(await episodeOverheadFigures(server, { samples: options.episodes, log: options.log })));
      }
      if (options.parts.includes('step')) {
        options.log(`steps: ${options.steps} sequential tool-call steps over HTTP and over /ws/episodes`);
        figures.push(...(await stepOverheadFigures(server, { samples: options.steps, log: options.log })));
      }
    } finally {
      await server.close();
    }
  }
  if (options.parts.includes('rollouts')) {
    options.log(`rollouts: ${options.rollouts} per run, ${options.inFlight} in flight, ${options.repeats} timed runs each`);
    figures.push(...(await customRolloutFigures(options)));
  }
  return figures;
}
