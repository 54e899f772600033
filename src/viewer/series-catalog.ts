/**
 * The series under the viewer's folder (`series/<name>/steps.jsonl`, written by corral serve for rollout requests
 * that name one): their list, and one series' per-step curve. Names from clients must match SERIES_NAME_PATTERN and
 * go through resolveInside, so no symlink is followed and nothing outside the folder is read.
 */
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CorralError } from '../core/errors.js';
import { resolveInside } from './safe-path.js';
import { SERIES_FOLDER, SERIES_NAME_PATTERN, SERIES_STEPS_FILE, type SeriesStep, parseSeriesRequestLine, seriesSteps } from './series-steps.js';

export interface SeriesListEntry {
  name: string;
  /** The series' run id (its records, as any run), or null when it holds no results.jsonl. */
  run: string | null;
  steps: number;
  last_step: number | null;
  rollouts: number;
  last_reward_mean: number | null;
  updated_at: string | null;
}

export interface SeriesCurve {
  name: string;
  run: string | null;
  env: string | null;
  model: string | null;
  steps: SeriesStep[];
}

export class SeriesCatalog {
  constructor(readonly root: string) {}

  names(): string[] {
    let entries;
    try {
      entries = readdirSync(resolveInside(this.root, SERIES_FOLDER), { withFileTypes: true });
    } catch {
      return [];
    }
    return entries
      .filter((entry) => entry.isDirectory() && SERIES_NAME_PATTERN.test(entry.name))
      .filter((entry) => lstatSync(join(this.root, SERIES_FOLDER, entry.name, SERIES_STEPS_FILE), { throwIfNoEntry: false })?.isFile())
      .map((entry) => entry.name)
      .sort();
  }

  list(): SeriesListEntry[] {
    return this.names().map((name) => {
      const curve = this.curve(name);
      const last = curve.steps.at(-1);
      return {
        name,
        run: curve.run,
        steps: curve.steps.length,
        last_step: last?.step ?? null,
        rollouts: curve.steps.reduce((total, step) => total + step.rollouts, 0),
        last_reward_mean: last?.reward_mean ?? null,
        updated_at: this.updatedAt(name),
      };
    });
  }

  /** Refused (VIEW_ERR_BAD_QUERY) for a name no series can have; VIEW_ERR_NOT_FOUND when there is no such series. */
  curve(name: string): SeriesCurve {
    if (!SERIES_NAME_PATTERN.test(name)) throw new CorralError('VIEW_ERR_BAD_QUERY', `name: ${JSON.stringify(name)} is not a series name`);
    const directory = resolveInside(this.root, `${SERIES_FOLDER}/${name}`);
    const stepsPath = resolveInside(this.root, `${SERIES_FOLDER}/${name}/${SERIES_STEPS_FILE}`);
    if (!lstatSync(stepsPath).isFile()) throw new CorralError('VIEW_ERR_OUTSIDE_ROOT', `Series ${name}: ${SERIES_STEPS_FILE} is not a regular file; refused`);
    const lines = readFileSync(stepsPath, 'utf8')
      .split('\n')
      .map((text) => parseSeriesRequestLine(text))
      .filter((line) => line !== null);
    const last = lines.at(-1);
    return {
      name,
      run: lstatSync(join(directory, 'results.jsonl'), { throwIfNoEntry: false })?.isFile() ? `${SERIES_FOLDER}/${name}` : null,
      env: last?.env ?? null,
      model: last?.model ?? null,
      steps: seriesSteps(lines),
    };
  }

  private updatedAt(name: string): string | null {
    const stats = lstatSync(join(this.root, SERIES_FOLDER, name, SERIES_STEPS_FILE), { throwIfNoEntry: false });
    return stats ? stats.mtime.toISOString() : null;
  }
}
