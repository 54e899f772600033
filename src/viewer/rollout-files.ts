/**
 * Files a rollout left beside results.jsonl: a terminal trial's Harbor folder (<run>/<info.trial_name>/ with
 * verifier/, artifacts/, agent/ and exception.txt) and a CLI agent's session log. Listed without following
 * symlinks (a link is shown as a link, never read); read through openInside, capped in size. A trial folder or
 * session log that is a link, or not a regular file, is simply not shown: the rollout itself still is.
 */
import { lstatSync, readdirSync, realpathSync } from 'node:fs';
import { CorralError } from '../core/errors.js';
import type { ResultRecord } from '../runner/trajectory/result-record.js';
import { readTextInside } from './open-inside.js';
import type { RunState } from './run-state.js';
import { isUnder, locateInside } from './safe-path.js';

export interface RolloutFile {
  /** Relative to the run folder: what /api/file takes. */
  path: string;
  bytes: number;
  symlink: boolean;
}

const MAX_FILES = 500;
const INLINE_BYTES = 64 * 1024;
const MAX_INLINE_TEXTS = 8;
export const MAX_FILE_BYTES = 4 * 1024 * 1024;

export function trialFolderOf(record: ResultRecord): string | null {
  const name = record.info?.['trial_name'];
  return typeof name === 'string' && /^[\w.-]+$/.test(name) && !name.startsWith('.') ? name : null;
}

export function rolloutFiles(run: RunState, record: ResultRecord): RolloutFile[] {
  const trial = trialFolderOf(record);
  if (!trial) return [];
  const files: RolloutFile[] = [];
  const walk = (relativeDirectory: string) => {
    const entries = listFolderInside(run, relativeDirectory);
    for (const entry of entries.sort((x, y) => (x.name < y.name ? -1 : 1))) {
      if (files.length >= MAX_FILES) return;
      const path = `${relativeDirectory}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() || entry.isSymbolicLink()) files.push({ path, bytes: entry.bytes, symlink: entry.isSymbolicLink() });
    }
  };
  walk(trial);
  return files;
}

type ListedEntry = { name: string; bytes: number; isDirectory(): boolean; isFile(): boolean; isSymbolicLink(): boolean };

/** A folder of the run (no link on the way), its entries lstat-ed; [] when it is refused, gone or resolved outside. */
function listFolderInside(run: RunState, relativeDirectory: string): ListedEntry[] {
  try {
    const { path, realRoot } = locateInside(run.root, run.pathOf(relativeDirectory));
    if (!lstatSync(path).isDirectory()) return [];
    const entries = readdirSync(path, { withFileTypes: true }).map((entry) => {
      const stats = lstatSync(`${path}/${entry.name}`, { throwIfNoEntry: false });
      return Object.assign(entry, { bytes: stats?.size ?? 0 });
    });
    // A folder swapped for a link while it was read: what was listed is not the run's.
    return isUnder(realRoot, realpathSync(path)) ? entries : [];
  } catch (error) {
    if (CorralError.isInstance(error) || (error as NodeJS.ErrnoException).code) return [];
    throw error;
  }
}

/**
 * What the verifier printed and the exception, inline on the rollout page (the rest is a click away): every
 * non-empty text file of verifier/ (test.sh's own test-stdout.txt is often empty, its test output being in a file
 * such as test-output.txt) and exception.txt.
 */
export async function inlineTrialTexts(run: RunState, files: readonly RolloutFile[]): Promise<Record<string, string>> {
  const wanted = files
    .filter((file) => !file.symlink && file.bytes > 0 && /\/(verifier\/[^/]+\.(txt|log|out)|exception\.txt)$/.test(file.path))
    .slice(0, MAX_INLINE_TEXTS);
  const texts: Record<string, string> = {};
  for (const file of wanted) {
    const text = await readRunFile(run, file.path, INLINE_BYTES).then(
      (read) => read.text,
      () => null,
    );
    if (text !== null) texts[file.path] = text;
  }
  return texts;
}

/** A file of the run (relative to its folder), at most `limit` bytes. */
export function readRunFile(run: RunState, relativePath: string, limit = MAX_FILE_BYTES): Promise<{ text: string; truncated: boolean }> {
  // The lexical check runs on the client's path alone, so 'x/../..' is refused before it meets the run's id.
  locateInsideLexically(relativePath);
  return readTextInside(run.root, run.pathOf(relativePath), limit);
}

function locateInsideLexically(relativePath: string): void {
  if (relativePath.includes('\0') || relativePath.startsWith('/') || relativePath.split(/[\\/]/).includes('..'))
    throw new CorralError('VIEW_ERR_OUTSIDE_ROOT', `Path ${JSON.stringify(relativePath)} leaves the run's folder`);
}

/** A CLI agent's raw session log, when its rollout recorded one (info.session_log: text or a file in the run). */
export async function sessionLogOf(run: RunState, record: ResultRecord): Promise<string | null> {
  const file = record.info?.['session_log_file'];
  if (typeof file === 'string') {
    try {
      return (await readRunFile(run, file, INLINE_BYTES)).text;
    } catch (error) {
      if (CorralError.isInstance(error)) return null;
      throw error;
    }
  }
  const log = record.info?.['session_log'];
  return typeof log === 'string' ? log.slice(0, INLINE_BYTES) : null;
}
