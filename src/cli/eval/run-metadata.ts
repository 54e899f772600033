/**
 * metadata.json's description of an evaluation run, the same for a local run and one through the queue: what
 * ran (environment and its source, agent, model, sampling), how (concurrency, timeouts, the command), which corral
 * wrote it, and when it started (kept from the first session on --resume).
 */
import { corralBuild } from './corral-build.js';
import { type EvalOptions, concurrencyCeiling } from './eval-options.js';
import type { PreparedRun } from './prepare-run.js';
import { thisWriter } from '../../runner/run/run-liveness.js';

export function runMetadata(run: PreparedRun, options: EvalOptions, backend: string, startedAt: number): Record<string, unknown> {
  const { command, environment, agent, examples, previous } = run;
  return {
    env_id: environment.name,
    env: environment.name,
    env_source: run.source,
    model: agent.model,
    agent: agent.name,
    backend,
    num_examples: examples.length,
    rollouts_per_example: command.rollouts_per_example,
    sampling_args: agent.samplingArgs ?? {},
    max_concurrent: concurrencyCeiling(options),
    command,
    model_timeout_s: options.modelTimeout,
    model_retries: options.modelRetries,
    max_errors: options.maxErrors ?? null,
    ...runStamp(startedAt, previous),
  };
}

/**
 * Which corral wrote a run and when it started: the same keys for eval, rescore and replay (the viewer and --resume
 * read them). On a resume, the first session's date and time are kept.
 */
export function runStamp(startedAt: number, previous?: Record<string, unknown> | null): Record<string, unknown> {
  const started = new Date(startedAt).toISOString();
  const kept = (key: string, fresh: string) => (typeof previous?.[key] === 'string' ? previous[key] : fresh);
  return {
    ...corralBuild(),
    date: kept('date', started.slice(0, 10)),
    time: kept('time', started.slice(11, 19)),
    started_at: kept('started_at', started),
    ...thisWriter(),
  };
}
