/**
 * What the compare page says about how two runs are related (docs/rescore-replay.md): a run made by `corral rescore`
 * or `corral replay` names its source run in metadata.json `lineage`; when that source is the other run of the
 * comparison it is called A or B, otherwise by its path.
 */
import { resolve } from 'node:path';

interface Side {
  label: 'A' | 'B';
  /** The run folder's absolute path. */
  directory: string;
  metadata: Record<string, unknown> | null;
}

export function lineageStatements(a: Side, b: Side): string[] {
  return [statement(a, b), statement(b, a)].filter((line): line is string => line !== null);
}

function statement(run: Side, other: Side): string | null {
  const lineage = run.metadata?.['lineage'] as Record<string, unknown> | undefined;
  if (typeof lineage !== 'object' || lineage === null || typeof lineage['source_run'] !== 'string') return null;
  const source = resolve(lineage['source_run']) === resolve(other.directory) ? other.label : lineage['source_run'];
  if (lineage['kind'] === 'rescore') {
    const repeats = typeof lineage['repeats'] === 'number' && lineage['repeats'] > 1 ? `, ${lineage['repeats']} scorings per trajectory` : '';
    return `${run.label} re-scores ${source} with ${String(lineage['env'] ?? run.metadata?.['env'] ?? '?')}${describeSource(lineage['env_source'])}${repeats}: same trajectories, new rewards`;
  }
  if (lineage['kind'] === 'replay') {
    const replays =
      typeof lineage['replays_per_trajectory'] === 'number' && lineage['replays_per_trajectory'] > 1
        ? `, ${lineage['replays_per_trajectory']} replays each`
        : '';
    return `${run.label} replays ${source} from turn ${String(lineage['from_turn'])} with ${String(run.metadata?.['agent'] ?? '?')} (${String(run.metadata?.['model'] ?? '?')}), ${String(lineage['tools'])} tools${replays}: turns before it are ${source}'s`;
  }
  return null;
}

/** " (package 1.2.0)", " (module sha256 1a2b3c4d…)", " (the tests of /tasks)", or nothing for a built-in. */
function describeSource(source: unknown): string {
  if (typeof source !== 'object' || source === null) return '';
  const fields = source as Record<string, unknown>;
  if (fields['kind'] === 'package') return ` (package ${String(fields['version'])})`;
  if (fields['kind'] === 'module' && typeof fields['sha256'] === 'string') return ` (module sha256 ${fields['sha256'].slice(0, 12)})`;
  if (fields['kind'] === 'built-in') return ` (built-in, corral ${String(fields['corral_version'])})`;
  // A terminal run re-verified: the tests that ran are the task folder's.
  if (fields['kind'] === 'task-folder') return ` (the tests of ${String(fields['path'])})`;
  return '';
}
