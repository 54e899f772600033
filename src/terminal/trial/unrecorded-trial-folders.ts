/**
 * Trial folders (`<task>__<7 characters>/`) of a terminal run that no results.jsonl line stands for: a trial
 * cancelled mid-way, a finished trial of a group that was not complete when the run stopped, anything a killed
 * corral left. --resume reruns those trials in new folders, so the old ones go first: the run directory then holds
 * exactly one folder per recorded trial, and Harbor's job result.json (computed from the folders) counts each once.
 */
import { readFile, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { resultKey } from '../../runner/trajectory/result-record.js';

/** harborTrialName's shape: a stem, `__`, 7 characters of ShortUUID's alphabet. */
const TRIAL_FOLDER_NAME = /^[A-Za-z0-9._-]+__[2-9A-HJ-NP-Za-km-z]{7}$/;

/** Removes every trial folder under runDirectory whose result.json is missing or names a trial not in `recorded`. */
export async function removeUnrecordedTrialFolders(runDirectory: string, recorded: ReadonlySet<string>): Promise<string[]> {
  const removed: string[] = [];
  for (const entry of await readdir(runDirectory, { withFileTypes: true }).catch(() => [])) {
    if (!entry.isDirectory() || !TRIAL_FOLDER_NAME.test(entry.name)) continue;
    const key = await recordedKey(join(runDirectory, entry.name, 'result.json'));
    if (key !== null && recorded.has(key)) continue;
    await rm(join(runDirectory, entry.name), { recursive: true, force: true });
    removed.push(entry.name);
  }
  return removed;
}

/** The `<example>#<rollout>` a trial's result.json is for (agent_result.metadata), else null. */
async function recordedKey(resultPath: string): Promise<string | null> {
  try {
    const result = JSON.parse(await readFile(resultPath, 'utf8')) as { agent_result?: { metadata?: { example_id?: unknown; rollout_index?: unknown } } };
    const metadata = result.agent_result?.metadata;
    if (typeof metadata?.example_id !== 'string' || typeof metadata.rollout_index !== 'number') return null;
    return resultKey(metadata.example_id, metadata.rollout_index);
  } catch {
    return null;
  }
}
