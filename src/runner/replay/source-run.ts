/** A saved run read back for re-scoring, replay or pair export: its records and metadata.json, by key. */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CorralError } from '../../core/errors.js';
import { type ResultRecord, resultKey } from '../trajectory/result-record.js';
import { ResultsWriter } from '../trajectory/results-writer.js';

export interface SourceRun {
  /** Absolute path. */
  directory: string;
  /** metadata.json, `{}` when the run wrote none. */
  metadata: Record<string, unknown>;
  records: ResultRecord[];
  byKey: ReadonlyMap<string, ResultRecord>;
}

export function readSourceRun(directory: string): SourceRun {
  const absolute = resolve(directory);
  if (!existsSync(join(absolute, 'results.jsonl')))
    throw new CorralError('RESCORE_ERR_RUN_NOT_FOUND', `${absolute} is not a run: it holds no results.jsonl`, { details: { path: absolute } });
  const records = ResultsWriter.readRecords(absolute);
  const metadataPath = join(absolute, 'metadata.json');
  let metadata: Record<string, unknown> = {};
  if (existsSync(metadataPath)) {
    try {
      metadata = JSON.parse(readFileSync(metadataPath, 'utf8')) as Record<string, unknown>;
    } catch (error) {
      throw new CorralError('RESCORE_ERR_RUN_NOT_FOUND', `${metadataPath} is not JSON (${(error as Error).message})`);
    }
  }
  return { directory: absolute, metadata, records, byKey: new Map(records.map((record) => [resultKey(record.example_id, record.rollout_index), record])) };
}

/** The environment the source ran, as the user named it (a module path for a module), for `--env`'s default. */
export function sourceEnvironmentName(run: SourceRun): string | undefined {
  const command = run.metadata['command'] as { env?: unknown } | undefined;
  if (typeof command?.env === 'string') return command.env;
  return typeof run.metadata['env'] === 'string' ? run.metadata['env'] : run.records[0]?.task;
}

/** The environment arguments the source ran with (`command.env_args.args`). */
export function sourceEnvironmentArgs(run: SourceRun): Record<string, unknown> {
  const command = run.metadata['command'] as { env_args?: { args?: unknown } } | undefined;
  const args = command?.env_args?.args;
  return typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}

/** Rollouts per example in the source: the highest rollout index + 1. */
export function sourceRolloutsPerExample(run: SourceRun): number {
  return run.records.reduce((most, record) => Math.max(most, record.rollout_index + 1), 1);
}
